/** @dtask/datadeps: in-place parallel algorithms (Dagger's Datadeps). */
export {};
