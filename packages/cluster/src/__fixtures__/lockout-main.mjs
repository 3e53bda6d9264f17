// Run as `node lockout-main.mjs` by cluster-lockout.test.ts: a scheduler listening on loopback
// with 2 local worker processes, flooded with 1,000 idle connections that never send a byte
// (from 127.0.0.2 and from 127.0.0.1, the address the workers join from), while 2 `dtask-worker`
// processes join over TCP and both local workers are killed and replaced. Prints one line per
// check and `lockout: ok`, and exits 0, once every worker serves under its number.

import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { cluster } from '@dtask/cluster';
import { Context, scope } from '@dtask/core';

const SECRET = 'lockout-secret-0123456789abcdef';
const bin = fileURLToPath(new URL('../../dist/bin/dtask-worker.js', import.meta.url));
const fail = (message) => {
  console.error(`lockout: FAILED: ${message}`);
  process.exit(1);
};
const until = async (check, ms, what) => {
  const t0 = performance.now();
  while (!check()) {
    if (performance.now() - t0 > ms) fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

const plugin = cluster({ workers: 2, listen: '127.0.0.1:0', secret: SECRET });
const ctx = new Context({ plugins: [plugin] });
await ctx.ready();
const [host, port] = plugin.address().split(':');
const locals = plugin.processWorkers().map((w) => w.worker);
console.log(`local workers: ${locals.join(',')}`);

// The flood: 1,000 connections that send nothing (they read and drop what comes), 500 from each address,
// opened 50 at a time; each one closed by the scheduler is not reopened.
const flood = [];
let opened = 0;
let closedByServer = 0;
const open = (localAddress) =>
  new Promise((resolve) => {
    const socket = connect({ host, port: Number(port), localAddress }, () => {
      opened++;
      resolve();
    });
    socket.resume();
    socket.on('error', () => resolve());
    socket.on('close', () => closedByServer++);
    flood.push(socket);
  });
const flooding = (async () => {
  for (let i = 0; i < 1000; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, j) => open((i + j) % 2 === 0 ? '127.0.0.2' : '127.0.0.1')),
    );
  }
})();

// Meanwhile: two workers join by hand over TCP, and both local workers die and are replaced.
const remotes = [0, 1].map(() =>
  spawn(process.execPath, [bin, '--connect', plugin.address()], {
    env: { ...process.env, DTASK_SECRET: SECRET },
    stdio: ['ignore', 'ignore', 'pipe'],
  }),
);
const remoteErrors = remotes.map((child) => {
  let text = '';
  child.stderr.on('data', (d) => (text += d));
  child.once('exit', (code) => {
    if (!stopping) fail(`a dtask-worker exited (${code}) before the end: ${text.trim()}`);
  });
  return () => text;
});
let stopping = false;
const firstPids = plugin.processWorkers().map((w) => w.child.pid);
for (const pid of firstPids) process.kill(pid, 'SIGKILL');

await flooding;
console.log(`flood: ${opened} idle connections opened`);
await until(
  () => {
    const ws = plugin.processWorkers();
    const replaced = locals.every((id) =>
      ws.some((w) => w.worker === id && w.wasReady && !firstPids.includes(w.child?.pid)),
    );
    const joined = ws.filter((w) => !locals.includes(w.worker) && w.wasReady).length;
    return replaced && joined === 2;
  },
  30_000,
  'the local replacements and the 2 dtask-workers to serve',
);
const numbers = plugin
  .processWorkers()
  .map((w) => w.worker)
  .sort((a, b) => a - b);
console.log(`workers serving: ${numbers.join(',')}`);
if (numbers.length !== 4) fail(`expected 4 workers, got ${numbers.join(',')}`);
for (const id of locals) if (!numbers.includes(id)) fail(`worker number ${id} was given up`);
for (const id of numbers) {
  const pid = await ctx.spawn({ scope: scope({ worker: id }) }, () => process.pid);
  if (typeof pid !== 'number') fail(`worker ${id} did not run a task`);
}
console.log('every worker ran a task');
const busy = plugin.violations().filter((v) => v.reason === 'busy').length;
console.log(`idle connections ended for want of room: ${busy >= 500 ? 'most' : busy}`);
await new Promise((r) => setTimeout(r, 1500)); // ended ones are destroyed a second after
const still = flood.length - closedByServer;
console.log(`idle connections still waiting: ${still <= 64 ? 'at most 64' : still}`);
if (still > 64) fail(`${still} idle connections still held (more than the cap of 64)`);
stopping = true;
for (const s of flood) s.destroy();
for (const child of remotes) child.kill('SIGKILL');
void remoteErrors;
await ctx.close();
console.log('lockout: ok');
process.exit(0);
