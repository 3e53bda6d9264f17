/** @dtask/lmdb: an LMDB-backed storage device, memory limits and checkpoints. */
export {};
