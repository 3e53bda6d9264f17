// Run as `node --import tsx ts-main.ts` (from the repository root): a TypeScript program whose
// everywhere() module is a .ts file, computed on a worker thread.
import { configure, everywhere, scope, shutdown, spawn } from '@dtask/core';
import { threads } from '../index.js';
import { norm } from './ts-tasks.js';

await configure({ plugins: [threads({ count: 1 })] }).ready();
await everywhere(new URL('./ts-tasks.ts', import.meta.url));
const result = await spawn({ scope: scope({ worker: 1, thread: 2 }) }, norm, { x: 3, y: 4 });
console.log(JSON.stringify(result));
await shutdown();
