// Run as `node idle-main.mjs` by the lifecycle test: one task on the TfjsProc, no shutdown();
// the idle TensorFlow.js thread must not keep node alive.
import { configure, scope, spawn } from '@dtask/core';
import { tfjs } from '@dtask/gpu-tfjs';
import { threads } from '@dtask/threads';

const plugin = tfjs({ backend: 'wasm' });
await configure({ plugins: [threads({ count: 1 }), plugin] }).ready();
const r = await spawn({ scope: scope({ gpu: 0 }) }, (x) => x.mul(2), new Float32Array([1, 2, 3]));
console.log(JSON.stringify([Array.from(r), plugin.backend]));
