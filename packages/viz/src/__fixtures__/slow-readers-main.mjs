// Run as `node slow-readers-main.mjs [ms]` by dashboard-slow-readers.test.ts: a dashboard
// (updates every 20 ms) followed by 100 clients of `/events` over real sockets that never read,
// while tasks run and the log grows for `ms` (default 3000) and over 1,000 tasks, then until a
// client that reads has had updates (30 s at most). The program's memory must stay bounded; a
// client that reads still gets updates. Prints what it checked, exits 0.
import { connect } from 'node:net';
import { Context } from '@dtask/core';
import { dashboard } from '@dtask/viz';

const ms = Number(process.argv[2] ?? 3000);
const plugin = dashboard({ interval: 20, onListening: () => {} });
const ctx = new Context({ plugins: [plugin] });
await ctx.ready();
const { hostname, port } = new URL(plugin.url);
const request = `GET /events HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`;
const sockets = [];
for (let i = 0; i < 100; i++) {
  const socket = connect(Number(port), hostname, () => socket.write(request));
  socket.pause(); // never reads
  socket.on('error', () => {});
  sockets.push(socket);
}
// One client that reads, counting updates.
let updates = 0;
let bytes = 0;
const reader = connect(Number(port), hostname, () => reader.write(request));
reader.on('data', (d) => {
  updates += d.toString().split('data: ').length - 1;
  bytes += d.length;
});
reader.on('error', () => {});

const used = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};
await new Promise((r) => setTimeout(r, 300));
const before = used();
let peak = before;
const end = performance.now() + ms;
let spawned = 0;
// For `ms` and over 1,000 tasks both: a loaded machine ran only 1,000 in 3 s.
while (performance.now() < end || spawned <= 1000) {
  const batch = Array.from({ length: 200 }, (_, i) =>
    ctx.spawn({ name: `step${i % 20}` }, () => i),
  );
  spawned += batch.length;
  await Promise.all(batch);
  await new Promise((r) => setTimeout(r, 5));
  peak = Math.max(peak, used());
}
// The server takes in the 101 clients as fast as the machine lets it: on a loaded one the reader,
// connected last, may be served only after the tasks have ended. Wait for it (30 s at most).
const waitUntil = performance.now() + 30_000;
while (updates <= 3 && performance.now() < waitUntil) {
  await new Promise((r) => setTimeout(r, 20));
  peak = Math.max(peak, used());
}
const grewMiB = (peak - before) / 2 ** 20;
console.log(`tasks run while 100 clients did not read: ${spawned > 1000 ? 'over 1000' : spawned}`);
console.log(`memory growth under 256 MiB: ${grewMiB < 256}`);
console.log(`the reading client got updates: ${updates > 3}`);
console.error(
  `${bytes} bytes read by the reader; memory growth ${grewMiB.toFixed(1)} MiB, ${updates} updates read, ${spawned} tasks`,
);
for (const s of sockets) s.destroy();
reader.destroy();
await ctx.close();
process.exit(grewMiB < 256 ? 0 : 1);
