// Run as `node writer-main.mjs <path>` by the crash-safety test: writes chunks through an
// LmdbDevice with a 1-byte memory limit (every put spills) and checkpoints beside them, as
// fast as it can, until it is killed. Entry i holds (i + j) % 251 at byte j, over 1 KiB to
// 1 MiB; it prints `ready` once the first spills have committed.
import { ChunkDb, LmdbDevice } from '@dtask/lmdb';

const [path] = process.argv.slice(2);
const db = await ChunkDb.open(path);
const device = new LmdbDevice({ db, memoryLimit: 1 });
/** Entry i's bytes (also used by the test to check what it reads back). */
const entry = (i) => {
  const bytes = new Uint8Array(1024 * (1 + ((i * 37) % 1024)));
  for (let j = 0; j < bytes.length; j++) bytes[j] = (i + j) % 251;
  return bytes;
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
