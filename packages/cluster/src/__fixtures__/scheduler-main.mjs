// Run as `node scheduler-main.mjs <secret>` by worker-exit.test.ts: a scheduler listening on
// loopback for remote workers (heartbeats every 200 ms, a 1.5 s timeout). Prints
// `address <host:port>`, then `joined` once one worker serves with its heartbeat thread
// joined, and stays up until killed.

import { cluster } from '@dtask/cluster';
import { Context } from '@dtask/core';

const plugin = cluster({
  workers: 0,
  listen: '127.0.0.1:0',
  secret: process.argv[2],
  heartbeatMs: 200,
  heartbeatTimeoutMs: 1500,
});
const ctx = new Context({ plugins: [plugin] });
await ctx.ready();
console.log(`address ${plugin.address()}`);
const poll = setInterval(() => {
  // Serving, and its heartbeat thread has joined (it was told the heartbeat timeout).
  if (plugin.processWorkers().some((w) => w.wasReady && w.heartbeat !== undefined)) {
    clearInterval(poll);
    console.log('joined');
  }
}, 20);
setInterval(() => {}, 60_000);
