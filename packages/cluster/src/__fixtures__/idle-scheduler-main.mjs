// Run by temp-folders.test.ts: starts a cluster of no local workers, prints `ready` once its
// private socket folder exists, and idles until it is killed.

import { cluster } from '@dtask/cluster';
import { configure } from '@dtask/core';

await configure({ plugins: [cluster({ workers: 0 })] }).ready();
console.log('ready');
setInterval(() => {}, 60_000);
