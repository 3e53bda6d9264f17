// One measurement of bench/per-item.mjs, run in a fresh Node process:
//   node --expose-gc bench/per-item-cases.mjs <root> <case> <count>
// Imports the built packages of the checkout at <root> (<root>/packages/*/dist), so that two
// checkouts can be run alternately. Prints one JSON line: the case, the count and sum of what
// came out (checked by the driver), the CPU of the whole process (every thread) and of the main
// thread over the timed part and the process's CPU over its life so far, all in ms, and the timed
// part's wall time.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, which, countText] = process.argv.slice(2);
const count = Number(countText);
const from = (pkg) => import(pathToFileURL(join(root, 'packages', pkg, 'dist', 'index.js')).href);
const core = await from('core');

function* naturals() {
  for (let i = 0; ; i++) yield i;
}

/** Each case sets up (untimed) and returns the timed part, which resolves to the sum. */
const cases = {
  /** `map` in the calling thread (the default context), as the 10,000,000-item memory test. */
  'map, in-process': async () => async () => {
    let sum = 0;
    let n = 0;
    for await (const y of core.map((x) => x + 1, naturals())) {
      sum += y;
      if (++n === count) break;
    }
    return sum;
  },
  /** `map` on 2 worker threads over an endless generator, as the 1,000,000-item test. */
  'map, 2 threads': async () => {
    const { threads } = await from('threads');
    await core.configure({ plugins: [threads({ count: 2 })] }).ready();
    return async () => {
      let sum = 0;
      let n = 0;
      for await (const y of core.map((x) => x % 7, naturals())) {
        sum += y;
        if (++n === count) break;
      }
      return sum;
    };
  },
  /**
   * `spawn` on 2 worker threads of a new closure per item (a loop's `(x) => x % 7`, the same
   * source each turn), 1,024 at a time, as the endless-generator test under `maxQueue` does.
   */
  'spawn a new closure each, 2 threads': async () => {
    const { threads } = await from('threads');
    await core.configure({ plugins: [threads({ count: 2 })] }).ready();
    return async () => {
      let sum = 0;
      for (let i = 0; i < count; ) {
        const batch = [];
        for (const end = Math.min(i + 1024, count); i < end; i++) {
          batch.push(core.spawn((x) => x % 7, i));
        }
        for (const y of await core.fetchAll(batch)) sum += y;
      }
      return sum;
    };
  },
  /** A streaming DAG across 2 threads read on the main one, as the 10,000,000-value test. */
  'stream, 2 threads': async () => {
    const { threads } = await from('threads');
    await core.configure({ plugins: [threads({ count: 2 })] }).ready();
    return async () => {
      const step = core.spawnStreaming(() => {
        const source = core.spawn(
          { scope: core.scope({ worker: 1, thread: 2 }), streamMaxEvals: count },
          async function* () {
            for (let i = 0; ; i++) yield i;
          },
        );
        return core.spawn({ scope: core.scope({ worker: 1, thread: 3 }) }, (v) => v + 1, source);
      });
      let sum = 0;
      for await (const v of core.streamValues(step)) sum += v;
      await step;
      return sum;
    };
  },
};

/** This thread's CPU in ms, from /proc (Linux; NaN elsewhere). */
function mainThreadMs() {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime; USER_HZ 100
  } catch {
    return Number.NaN;
  }
}

const timed = await cases[which]();
globalThis.gc();
const main0 = mainThreadMs();
const c0 = process.cpuUsage();
const t0 = performance.now();
const sum = await timed();
const ms = performance.now() - t0;
const c = process.cpuUsage(c0);
const mainMs = mainThreadMs() - main0;
const life = process.cpuUsage();
await core.shutdown();
console.log(
  JSON.stringify({
    case: which,
    count,
    sum,
    cpuMs: (c.user + c.system) / 1000,
    mainMs,
    lifeCpuMs: (life.user + life.system) / 1000,
    ms,
  }),
);
