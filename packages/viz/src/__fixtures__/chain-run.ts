// The picture tests' run: `chains` chains make-image → blur → features (named tasks) on a
// context, with logging on. Every task says where it ran (`taskProcessor()` inside it), so a
// test can hold the views against what really happened.
import { type Context, enableLogging, fetchLogs, type LogEvent } from '@dtask/core';

declare const dtask: typeof import('@dtask/core');

/** An image with the processors its chain ran on so far. */
interface Traced {
  where: string[];
  img: Float32Array;
}

/** What a chain run gives: its logs, and where each task ran (task id → processor id). */
export interface ChainRun {
  logs: LogEvent[];
  ranOn: Map<number, string>;
  /** Tasks per processor, counted from inside the tasks. */
  perProcessor: Map<string, number>;
}

/** Runs `chains` chains on `ctx` (logging on, the log emptied first) and reads the log. */
export async function chainRun(ctx: Context, chains = 300, side = 16): Promise<ChainRun> {
  enableLogging();
  fetchLogs();
  const makeImage = (seed: number, n: number): Traced => ({
    where: [dtask.taskProcessor().id],
    img: new Float32Array(n * n).map((_, i) => ((seed * 31 + i) % 17) / 17),
  });
  const blur = (x: Traced): Traced => ({
    where: [...x.where, dtask.taskProcessor().id],
    img: x.img.map((v, i) => (v + (x.img[i - 1] ?? v) + (x.img[i + 1] ?? v)) / 3),
  });
  const features = (x: Traced): Traced => ({
    where: [...x.where, dtask.taskProcessor().id],
    img: new Float32Array([x.img.reduce((s, v) => s + v, 0) / x.img.length]),
  });
  const ids: number[][] = [];
  const ends = [];
  for (let i = 0; i < chains; i++) {
    const a = ctx.spawn({ name: 'make-image' }, makeImage, i, side);
    const b = ctx.spawn({ name: 'blur' }, blur, a);
    const c = ctx.spawn({ name: 'features' }, features, b);
    ids.push([a.id, b.id, c.id]);
    ends.push(c);
  }
  const results = await Promise.all(ends);
  const logs = fetchLogs();
  const ranOn = new Map<number, string>();
  const perProcessor = new Map<string, number>();
  results.forEach((r, i) => {
    r.where.forEach((proc, k) => {
      ranOn.set(ids[i][k], proc);
      perProcessor.set(proc, (perProcessor.get(proc) ?? 0) + 1);
    });
  });
  return { logs, ranOn, perProcessor };
}
