// Run as `node bad-bytes-main.mjs [fuzzMs]` by cluster-bad-bytes.test.ts: a scheduler listening
// on loopback with one worker process, attacked by a secret holder speaking the wire by hand.
// 1. Nine malformed batches, each sent in the same write as the handshake's answer, to the
//    scheduler's port and to the worker's peer port. 2. For `fuzzMs` (default 3000), random
//    and mutated frames on authenticated links. Each bad frame must close its own link only:
//    the scheduler and the worker keep serving, nothing is uncaught. Prints the counts and
//    `bad bytes: ok`, exit 0.
import { createHmac, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { serialize } from 'node:v8';
import { cluster } from '@dtask/cluster';
import { Context, scope } from '@dtask/core';

const SECRET = 'bad-bytes-secret-0123456789abcdef';
const fuzzMs = Number(process.argv[2] ?? 3000);
let crashes = 0;
process.on('uncaughtException', (e) => {
  crashes++;
  console.error('uncaught:', e);
});
process.on('unhandledRejection', (e) => {
  crashes++;
  console.error('unhandled:', e);
});

const plugin = cluster({ workers: 1, listen: '127.0.0.1:0', secret: SECRET });
const ctx = new Context({ plugins: [plugin] });
await ctx.ready();
const [worker] = plugin.processWorkers();
const workerPid = worker.child.pid;

/** `[u32 length][u8 kind][body]` */
const frame = (kind, body) => {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(body.length, 0);
  head.writeUInt8(kind, 4);
  return Buffer.concat([head, body]);
};
/** A core batch's frame body: `[u32 stream length][v8 stream]`, padded to 8 bytes. */
const batchBody = (value) => {
  const stream = serialize(value);
  const body = Buffer.alloc(Math.ceil((4 + stream.length) / 8) * 8);
  body.writeUInt32BE(stream.length, 0);
  stream.copy(body, 4);
  return body;
};

/**
 * Opens a connection to `address`, proves the secret with `hello`, and writes `after(answer)`:
 * the handshake's answer with whatever follows it in the same write. Resolves once the other
 * side closes the link (true) or keeps it open for `waitMs` (false).
 */
function attack(address, hello, after, waitMs = 1500) {
  const [host, port] = address.replace(/^tcp:/, '').split(':');
  return new Promise((resolve) => {
    const socket = address.startsWith('unix:')
      ? connect({ path: address.slice(5) })
      : connect(Number(port), host);
    let got = Buffer.alloc(0);
    let sent = false;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(false);
    }, waitMs);
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(sent);
    });
    socket.on('data', (d) => {
      got = Buffer.concat([got, d]);
      if (sent || got.length < 5 || got.length < 5 + got.readUInt32BE(0)) return;
      const { nonce } = JSON.parse(got.subarray(5, 5 + got.readUInt32BE(0)).toString());
      const mine = randomBytes(32).toString('hex');
      const proof = createHmac('sha256', SECRET)
        .update(['client', nonce, mine, JSON.stringify(hello)].join('|'))
        .digest('hex');
      sent = true;
      socket.write(after(frame(1, Buffer.from(JSON.stringify({ nonce: mine, proof, hello })))));
    });
  });
}

const malformed = [
  batchBody(42),
  batchBody('not a batch'),
  batchBody(null),
  batchBody([null]),
  batchBody([7, 'x']),
  batchBody([{ op: 'fail', id: 'one', error: null, ms: 'x' }]),
  batchBody([{ op: 'value', req: {}, value: 1 }]),
  Buffer.from([0, 0, 0, 200, 1, 2, 3, 4]),
  batchBody({ op: 'ready' }),
];
const schedulerHello = () => ({
  role: 'worker',
  pid: 1,
  host: 'attacker',
  peerAddress: 'tcp:127.0.0.1:1',
});
const peerHello = () => ({ role: 'peer', worker: 999 });
let closedAtOnce = 0;
for (const body of malformed) {
  const bad = frame(2, body);
  if (await attack(plugin.address(), schedulerHello(), (answer) => Buffer.concat([answer, bad])))
    closedAtOnce++;
  if (await attack(worker.peerAddress, peerHello(), (answer) => Buffer.concat([answer, bad])))
    closedAtOnce++;
}
console.log(`malformed batches after the handshake's answer: ${malformed.length * 2} sent`);
console.log(`links closed: ${closedAtOnce === malformed.length * 2 ? 'each' : closedAtOnce}`);

// The fuzz: random frames and mutations of valid ones, many per authenticated link.
const valid = [
  frame(2, batchBody([{ op: 'ready', holder: 'thread:9:1' }])),
  frame(2, batchBody([{ op: 'stalled', stalled: true, seen: 1 }])),
  frame(2, batchBody([{ op: 'logs', events: [] }])),
  frame(3, serialize({ op: 'dying', task: 3 })),
  frame(2, batchBody([{ op: 'peerFetch', req: 1, key: 2 }])),
  frame(4, Buffer.alloc(0)),
];
const rand = (n) => Math.floor(Math.random() * n);
function mutate(buf) {
  const b = Buffer.from(buf);
  switch (rand(4)) {
    case 0: // flip bytes (the header included)
      for (let i = 0, n = 1 + rand(4); i < n; i++) b[rand(b.length)] = rand(256);
      return b;
    case 1: // cut short, with a header saying so
      return b.length > 6 ? frame(b[4], b.subarray(5, 5 + rand(b.length - 5))) : b;
    case 2: // random bytes after a valid header
      return frame(1 + rand(5), randomBytes(rand(64)));
    default: // random bytes
      return randomBytes(1 + rand(32));
  }
}
let tried = 0;
let linksClosed = 0;
let links = 0;
const until = performance.now() + fuzzMs;
while (performance.now() < until) {
  const toPeer = links % 4 === 3;
  const frames = Array.from({ length: 1 + rand(8) }, () => mutate(valid[rand(valid.length)]));
  tried += frames.length;
  links++;
  const closed = await attack(
    toPeer ? worker.peerAddress : plugin.address(),
    toPeer ? peerHello() : schedulerHello(),
    (answer) => Buffer.concat([answer, ...frames]),
    100,
  );
  if (closed) linksClosed++;
}
console.log(`fuzz: frames tried ${tried}, links ${links}, links closed ${linksClosed}`);

const value = await ctx.spawn({ scope: scope({ worker: worker.worker }) }, () => process.pid);
console.log(`the worker still serves: ${value === workerPid}`);
console.log(`the scheduler still serves: ${(await ctx.spawn((x) => x * 2, 21)) === 42}`);
console.log(`crashes: ${crashes}`);
await ctx.close();
console.log(`bad bytes: ${crashes === 0 ? 'ok' : 'FAILED'}`);
process.exit(crashes === 0 ? 0 : 1);
