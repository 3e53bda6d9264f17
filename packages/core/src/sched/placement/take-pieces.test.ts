// Chunks of one piece per processor (ChunkHandle.pieceFor, the hook @dtask/shard is built on),
// over in-memory worker runtimes: a task gets the piece of the processor it is placed on.
import { afterEach, describe, expect, it } from 'vitest';
import {
  Chunk,
  type Context,
  ExactScope,
  isDataLost,
  type Processor,
  SchedulingError,
  scope,
  UnionScope,
  WorkerLostError,
} from '../../index.js';
import { makeTask, nextTaskId } from '../../task/spawn-task.js';
import { TaskFlags } from '../../task/task-state.js';
import { type InMemoryRig, inMemoryRig } from '../../testing/in-memory-rig.js';
import { restorePieces, takePieces } from './take-pieces.js';

const core = await import('../../index.js');
(globalThis as { dtask?: typeof core }).dtask = core;
declare const dtask: typeof core;

let current: InMemoryRig | undefined;
afterEach(async () => {
  await current?.ctx.close();
  current = undefined;
});

type Piece = { n: number; madeOn: string };

/** A chunk with one piece per processor of `procs`, each made by `make` there and pinned. */
function perProcessor(ctx: Context, procs: Processor[], make: () => unknown) {
  const pieces = new Map<string, Chunk<unknown>>();
  for (const p of procs) {
    const exact = new ExactScope(p);
    const task = ctx.spawn({ scope: exact, resultScope: exact }, make);
    const fetch = () => task.fetch();
    pieces.set(p.id, new Chunk({ pending: task, task, pinned: true, processor: p, fetch }, exact));
  }
  const where = new UnionScope(...procs.map((p) => new ExactScope(p)));
  const chunk = new Chunk<Piece>(
    {
      processor: procs[0] as Processor,
      pinned: true,
      pieceFor: (p) => pieces.get(p.id),
      fetch: () => Promise.all([...pieces.values()].map((c) => c.fetch())),
    },
    where,
  );
  return { chunk, pieces };
}

const makePiece = () => ({ n: 0, madeOn: dtask.taskProcessor().id });
const bump = (piece: Piece) => {
  piece.n++;
  return [piece.madeOn, dtask.taskProcessor().id];
};

describe('pieceFor: a chunk of one piece per processor', () => {
  it('each task gets the piece of the processor it runs on, and mutates it there', async () => {
    current = inMemoryRig(2);
    const { ctx, procs } = current;
    const { chunk, pieces } = perProcessor(ctx, procs, makePiece);
    // Spawned before the pieces exist: they wait for the piece where they are placed.
    const runs = await Promise.all(Array.from({ length: 20 }, () => ctx.spawn(bump, chunk)));
    for (const [madeOn, ranOn] of runs) expect(madeOn).toBe(ranOn);
    expect(new Set(runs.map(([, ranOn]) => ranOn))).toEqual(new Set(procs.map((p) => p.id)));
    const counts = await Promise.all([...pieces.values()].map((c) => c.fetch() as Promise<Piece>));
    expect(counts.reduce((a, p) => a + p.n, 0)).toBe(20);
    // A scope naming one holder puts the task there, with that piece.
    const [madeOn] = await ctx.spawn({ scope: new ExactScope(procs[1]) }, bump, chunk);
    expect(madeOn).toBe(procs[1].id);
  });

  it('a scope that allows no holder fails the task with SchedulingError naming the holders', async () => {
    current = inMemoryRig(2);
    const { ctx, procs } = current;
    const { chunk } = perProcessor(ctx, [procs[0]], makePiece);
    const task = ctx.spawn({ scope: scope({ worker: 1, thread: procs[1].thread }) }, bump, chunk);
    const error = await task.fetch().catch((e: { cause?: unknown }) => e.cause);
    expect(SchedulingError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toContain(
      `the processors holding pieces of chunk argument 0 (a shard), UnionScope(ExactScope(${procs[0].id}))`,
    );
  });

  it('a task using a piece when its worker dies fails with WorkerLostError; the piece is reported lost', async () => {
    current = inMemoryRig(2);
    const { ctx, procs, links } = current;
    const { chunk, pieces } = perProcessor(ctx, [procs[0]], () => ({ n: 0 }));
    await ctx.spawn(bump, chunk);
    const piece = pieces.get(procs[0].id);
    expect(isDataLost(piece)).toBe(false);
    const slow = ctx.spawn(async (p: Piece) => {
      p.n++;
      await new Promise((r) => setTimeout(r, 60));
      return p.n;
    }, chunk);
    await new Promise((r) => setTimeout(r, 15));
    links[0].close();
    const error = await slow.fetch().catch((e: { cause?: unknown }) => e.cause);
    expect(WorkerLostError.isInstance(error)).toBe(true);
    expect(isDataLost(piece)).toBe(true);
  });

  it('placed again (its processor went away before it ran), a task gets its pieces chosen again', async () => {
    current = inMemoryRig(2);
    const { ctx, procs } = current;
    const { chunk, pieces } = perProcessor(ctx, procs, makePiece);
    // A task made but not submitted: this test plays the scheduler's part.
    const task = makeTask(ctx.scheduler, nextTaskId(), bump, [chunk], {}, {});
    task.flags |= TaskFlags.PieceArgs;
    // The piece is still being made: nothing is taken yet, the task waits for it.
    expect(takePieces(task, procs[1])?.length).toBe(1);
    expect(task.args[0]).toBe(chunk);
    await pieces.get(procs[1].id)?.fetch();
    expect(takePieces(task, procs[1])).toBeUndefined();
    expect(task.args[0]).toBe(pieces.get(procs[1].id));
    expect(task.options.inPlace).toBe(true);
    expect(task.flags & TaskFlags.PieceArgs).toBe(0);
    restorePieces(task);
    expect(task.args[0]).toBe(chunk);
    expect(task.flags & TaskFlags.PieceArgs).toBe(TaskFlags.PieceArgs);
  });
});
