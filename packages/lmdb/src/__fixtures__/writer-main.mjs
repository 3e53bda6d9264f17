// Run as `node writer-main.mjs <path>` by the crash-safety test: writes chunks through an
// LmdbDevice with a 1-byte memory limit (every put spills) and checkpoints beside them, as
// fast as it can, until it is killed. Entry i holds (i + j) % 251 at byte j, over 1 KiB to
// 1 MiB; it prints `ready` once the first spills have committed.
import { ChunkDb, LmdbDevice } from '@dtask/lmdb';

const [path] = process.argv.slice(2);
const db = await ChunkDb.open(path);
const device = new LmdbDevice({ db, memoryLimit: 1 });
/** (i + j) % 251 for every j of entry i is this pattern from i % 251 on. */
const pattern = new Uint8Array(1024 * 1024 + 251);
for (let j = 0; j < pattern.length; j++) pattern[j] = j % 251;
/** Entry i's bytes (the test checks what it reads back against the same rule). */
const entry = (i) => {
  const length = 1024 * (1 + ((i * 37) % 1024));
  return pattern.slice(i % 251, (i % 251) + length);
};
for (let i = 0; ; i++) {
  const spill = device.put(`chunk-${i}`, entry(i));
  // Tag 16: a Uint8Array (codec.ts).
  if (i % 5 === 0) db.writeSync(`c:ck-${i}`, { tag: 16, bytes: entry(i) });
  if (i === 20) {
    await spill;
    console.log('ready');
  }
  if (i % 8 === 7) await spill;
}
