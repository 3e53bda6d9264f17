// Run as `node idle-main.mjs` by the lifecycle test: one task on the accelerator, no shutdown();
// the idle accelerator thread must not keep node alive.
import { configure, scope, spawn } from '@dtask/core';
import { accelerator } from '@dtask/example-accelerator';

const plugin = accelerator();
await configure({ plugins: [plugin] }).ready();
const doubled = await spawn(
  { scope: scope({ accel: 0 }) },
  (a) => a.map((v) => v * 2),
  new Float64Array([1, 2, 3]),
);
console.log(JSON.stringify([Array.from(doubled), plugin.stats()[0].transfers]));
