// A plain program (`node user-local-closures.mjs`): task functions that cannot travel run on the
// main thread with a warning once per function (a closure given to `map` included), and the
// `localClosures: 'error'` context option makes them a TaskFunctionError instead.
import { configure, map, shutdown, spawn, TaskFunctionError } from '@dtask/core';
import { threads } from '@dtask/threads';

const warnings = [];
process.on('warning', (w) => {
  if (w.code === 'DTASK_LOCAL_CLOSURE') warnings.push(w.message);
});
await configure({ plugins: [threads({ count: 2 })] }).ready();
const factor = 3;
const where = [];
for (let i = 0; i < 3; i++) {
  where.push(await spawn((x) => [x * factor, dtask.taskProcessor().id], i));
}
const offsetBy = (x) => x + factor;
let sum = 0;
for await (const y of map(offsetBy, [1, 2, 3])) sum += y;
await new Promise((r) => setImmediate(r));
console.log(`ran on ${[...new Set(where.map(([, id]) => id))].join(', ')}; map sum ${sum}`);
console.log(`${warnings.length} warnings`);
for (const w of warnings)
  console.log(`- ${w.slice(0, w.indexOf(' uses'))} | ${/\(thread:1:1\)/.test(w)}`);

configure({ plugins: [threads({ count: 2 })], localClosures: 'error' });
try {
  spawn((x) => x * factor, 1);
  console.log('no error');
} catch (error) {
  console.log(`${TaskFunctionError.isInstance(error) ? error.name : error} ${error.code}`);
}
await shutdown();
