// Packing before spreading: processors costly to wake (`wakeMs`, a cluster's local workers past
// the machine's cores) get a task whose run time is known to be tiny only once those cheap to
// wake have about that much queued, of tasks at least that long on average; tasks not yet timed,
// and long ones, spread as before. Over in-memory worker runtimes (the real protocol), among few
// candidates and among many (sampled).
import { afterEach, describe, expect, it } from 'vitest';
import { type InMemoryRig, inMemoryRig } from '../../testing/in-memory-rig.js';
import { WEIGHED_SLOTS } from './choose-slot.js';

const core = await import('../../index.js');
(globalThis as { dtask?: typeof core }).dtask = core;
declare const dtask: typeof core;

let current: InMemoryRig | undefined;
afterEach(async () => {
  await current?.ctx.close();
  current = undefined;
});

const CHEAP = 2;
/** The first `CHEAP` processors are free to wake, the others cost 5 ms. */
const rig = (n: number) => inMemoryRig(n, { wakeMs: (i) => (i < CHEAP ? 0 : 5) });
const where = () => dtask.taskProcessor().id;

describe.each([
  ['few candidates', 8],
  ['many candidates (sampled)', WEIGHED_SLOTS * 2 + 8],
])('packing tiny tasks, %s', (_, n) => {
  it('a tiny task known to be tiny runs on the processors cheap to wake', async () => {
    current = rig(n);
    const { ctx, procs } = current;
    // Learns its run time (enough runs that one descheduled by a busy machine has faded).
    await Promise.all(Array.from({ length: 200 }, () => ctx.spawn(where)));
    const ran = await Promise.all(Array.from({ length: 400 }, () => ctx.spawn(where)));
    const cheap = new Set(procs.slice(0, CHEAP).map((p) => p.id));
    // Spread evenly, CHEAP of n processors would take CHEAP / n of them (a quarter at most).
    // Packed, they take them all; a run descheduled meanwhile may push a few past them.
    const onCheap = ran.filter((id) => cheap.has(id)).length;
    expect(onCheap, `${onCheap} of 400 on the cheap processors`).toBeGreaterThanOrEqual(360);
  });

  it('a burst of small tasks longer than a wake-up in all stays on the cheap processors', async () => {
    current = rig(n);
    const { ctx, procs } = current;
    const small = () => {
      const end = performance.now() + 0.02;
      while (performance.now() < end); // 20 µs: 1,000 of them queue 10 ms per cheap processor
      return dtask.taskProcessor().id;
    };
    await Promise.all(Array.from({ length: 200 }, () => ctx.spawn(small)));
    // Each cheap processor gets far more than a wake-up's worth queued, but of tasks far shorter
    // than one: waking more would only share the same cores.
    const ran = await Promise.all(Array.from({ length: 1000 }, () => ctx.spawn(small)));
    const cheap = new Set(procs.slice(0, CHEAP).map((p) => p.id));
    const onCheap = ran.filter((id) => cheap.has(id)).length;
    expect(onCheap, `${onCheap} of 1,000 on the cheap processors`).toBeGreaterThanOrEqual(900);
  });

  it("a function's first burst, not timed yet, spreads over all of them", async () => {
    current = rig(n);
    const { ctx } = current;
    const ran = await Promise.all(Array.from({ length: n * 4 }, () => ctx.spawn(where)));
    expect(new Set(ran).size).toBe(n);
  });

  it('tasks known to take longer than a wake-up spread past the cheap processors', async () => {
    current = rig(n);
    const { ctx } = current;
    const slow = () => {
      const end = performance.now() + 8;
      while (performance.now() < end); // 8 ms of work: more than waking another costs
      return dtask.taskProcessor().id;
    };
    await ctx.spawn(slow); // learns its run time
    const ran = await Promise.all(Array.from({ length: 12 }, () => ctx.spawn(slow)));
    expect(new Set(ran).size).toBeGreaterThan(CHEAP);
  });
});
