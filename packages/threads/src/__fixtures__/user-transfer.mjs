// A plain program (`node user-transfer.mjs`): a 64 MiB argument moved to a worker thread with the
// transfer option (the caller's buffer is detached afterwards), one copied without it, and a
// typed error for a view listed instead of its buffer.
import { ArgumentError, configure, scope, shutdown, spawn } from '@dtask/core';
import { threads } from '@dtask/threads';

await configure({ plugins: [threads({ count: 2 })] }).ready();
const onThread2 = scope({ worker: 1, thread: 2 });
const read = (b) => [b.length, b[b.length - 1], dtask.taskProcessor().id];

const moved = new Uint8Array(64 * 2 ** 20).fill(5);
console.log('moved:', await spawn({ scope: onThread2, transfer: [moved.buffer] }, read, moved));
console.log('caller after transfer:', moved.byteLength, 'bytes');

const copied = new Uint8Array(1024).fill(6);
console.log('copied:', await spawn({ scope: onThread2 }, read, copied));
console.log('caller after copy:', copied.byteLength, 'bytes');

try {
  spawn({ transfer: [copied] }, read, copied);
} catch (error) {
  console.log(ArgumentError.isInstance(error), error.code, error.message.split(';')[1].trim());
}
await shutdown();
