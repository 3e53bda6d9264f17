// Run as `node uncopyable-args-main.mjs` by threads-uncopyable.test.ts: tasks on worker threads
// whose argument cannot be copied, however copying it fails (a getter that throws, a proxy whose
// traps throw, a revoked proxy). Each fails with a typed error at its call; the program goes on
// and exits 0.
import { Context, scope } from '@dtask/core';
import { threads } from '@dtask/threads';

const ctx = new Context({ plugins: [threads({ count: 1 })] });
const boom = () => {
  throw new Error('boom');
};
const revoked = Proxy.revocable({}, {});
revoked.revoke();
const cases = {
  'a getter that throws': {
    get x() {
      throw new Error('getter boom');
    },
  },
  'a proxy whose get throws': new Proxy({ a: 1 }, { get: boom }),
  'a proxy whose ownKeys throws': new Proxy({ a: 1 }, { ownKeys: boom }),
  'a proxy whose getPrototypeOf throws': new Proxy({ a: 1 }, { getPrototypeOf: boom }),
  'a revoked proxy': revoked.proxy,
  'an array holding a revoked proxy': [1, revoked.proxy],
};
const on = { scope: scope({ thread: 2 }) };
for (const [what, value] of Object.entries(cases)) {
  let outcome;
  let task;
  try {
    task = ctx.spawn(on, (v) => typeof v, value);
  } catch (e) {
    outcome = `spawn threw ${e.name} ${e.code}`;
  }
  if (task !== undefined) {
    outcome = await task.then(
      () => 'ran',
      (e) => `the task failed with ${e.cause?.name} ${e.cause?.code}`,
    );
  }
  console.log(`${what}: ${outcome}`);
}
console.log(`still serves: ${await ctx.spawn(on, (x) => x + 1, 41)}`);
await ctx.close();
