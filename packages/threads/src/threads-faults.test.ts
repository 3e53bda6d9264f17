// Real worker threads: cancellation, threads that die (process.exit,
// uncaught errors, out of memory, terminate from outside), the 3-kill limit, recomputation of
// lost results from lineage, and a chaos run. Needs the built dist (worker threads load it).
import { CancelledError, DTaskFailedError, scope, WorkerLostError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { failureOf, ownRig, type Rig, rig, sharedInts, until } from './__fixtures__/harness.js';

const onThread = (thread: number) => ({ scope: scope({ worker: 1, thread }) });

/**
 * For the tests whose tasks all run on thread 2: one worker thread (thread 2) instead of the
 * rig's two, each of which costs about 0.1 s of CPU to start and load the fixtures.
 */
const ONE_THREAD = { count: 1 } as const;

/** The ThreadWorker running thread `thread` now. */
const workerOf = (r: Rig, thread: number) =>
  r.plugin.threadWorkers().find((w) => w.proc.id === `thread:1:${thread}`)!;

/** Resolves once thread `thread` has been replaced by a newer worker than `old`. */
const replaced = (r: Rig, thread: number, old: unknown) =>
  until(() => workerOf(r, thread) !== old && !workerOf(r, thread).exited, 10_000, 'a replacement');

describe('threads: cancellation', () => {
  it('cancel() of a queued task fails it at once with CancelledError', async () => {
    const { ctx, tasks } = await rig();
    const slow = ctx.spawn(onThread(2), tasks.sleep, 400, 'slow');
    const queued = ctx.spawn(onThread(2), tasks.add, slow as unknown as number, 1);
    let slowEnded = false;
    void slow.then(() => (slowEnded = true));
    expect(queued.cancel()).toBe(true);
    const error = await failureOf(queued);
    // At once: before the 400 ms task it waited for ends (an order, not a clock a loaded
    // machine stretches).
    expect(slowEnded).toBe(false);
    expect(error).toBeInstanceOf(DTaskFailedError);
    expect(error.cause).toBeInstanceOf(CancelledError);
    expect(error.cause.code).toBe('DTASK_CANCELLED');
    expect(await slow).toBe('slow'); // unrelated to the cancelled dependent
    // Queued on a busy thread (sent ahead, not started) works the same way.
    const blocker = ctx.spawn(onThread(3), tasks.sleep, 300, 'blocker');
    const behind = ctx.spawn(onThread(3), tasks.sleep, 1, 'behind');
    await new Promise((r) => setTimeout(r, 20));
    behind.cancel();
    expect((await failureOf(behind)).cause).toBeInstanceOf(CancelledError);
    expect(await blocker).toBe('blocker');
  });

  it('a running async task sees its abort signal and fails with CancelledError', async () => {
    const { ctx, tasks } = await rig(ONE_THREAD);
    const flags = sharedInts(2);
    const t = ctx.spawn(onThread(2), tasks.waitForAbort, flags);
    await until(() => Atomics.load(flags, 1) === 1, 5000, 'the task to start');
    t.cancel();
    const error = await failureOf(t);
    expect(error.cause).toBeInstanceOf(CancelledError);
    await until(() => Atomics.load(flags, 0) === 1, 5000, 'the task to see its abort signal');
    // The thread goes on serving.
    expect(await ctx.spawn(onThread(2), tasks.whereAmI)).toBe('thread:1:2');
  });

  it('a task that blocks its thread is cancelled; the thread is terminated after cancelGraceMs and replaced', async () => {
    const r = await rig({ ...ONE_THREAD, cancelGraceMs: 100 });
    const { ctx, tasks } = r;
    const old = workerOf(r, 2);
    let threadEnded = false;
    const exited = new Promise<number>((resolve) => old.worker.once('exit', resolve));
    void exited.then(() => (threadEnded = true));
    const flags = sharedInts(2);
    const spinner = ctx.spawn(onThread(2), tasks.spinForever, flags);
    await until(() => Atomics.load(flags, 1) === 1, 5000, 'the spinner to start');
    const t0 = performance.now();
    spinner.cancel();
    expect((await failureOf(spinner)).cause).toBeInstanceOf(CancelledError);
    // At once: before the grace period ends its thread (an order, not a clock a loaded
    // machine stretches).
    expect(threadEnded).toBe(false);
    await exited;
    expect(performance.now() - t0).toBeGreaterThanOrEqual(90);
    await replaced(r, 2, old);
    expect(await ctx.spawn(onThread(2), tasks.whereAmI)).toBe('thread:1:2');
  });

  it('a kill after a cancel’s grace period does not count toward the 3-kill limit', async () => {
    const r = await rig({ ...ONE_THREAD, cancelGraceMs: 50 });
    const { ctx, tasks } = r;
    const flags = sharedInts(2);
    const runs = sharedInts(1);
    const spinner = ctx.spawn(onThread(2), tasks.spinForever, flags);
    await until(() => Atomics.load(flags, 1) === 1, 5000, 'the spinner to start');
    // Sent to thread 2 behind the spinner: in flight there when the thread is terminated.
    // It kills its thread on its first 2 runs: 2 kills of its own, plus the cancel's kill if it
    // counted, would reach the limit.
    const victim = ctx.spawn(onThread(2), tasks.exitFirst, runs, 2, 'survived');
    await new Promise((resolve) => setTimeout(resolve, 20));
    spinner.cancel();
    expect(await victim).toBe('survived');
    expect(Atomics.load(runs, 0)).toBe(3);
  });
});

describe('threads: a failed task’s dependents sent ahead', () => {
  it('are taken back silently: the thread, busy with another task, is not ended', async () => {
    const r = await rig({ ...ONE_THREAD, cancelGraceMs: 50 });
    const { ctx, tasks } = r;
    const old = workerOf(r, 2);
    const runs = sharedInts(1);
    const failing = ctx.spawn(onThread(2), tasks.failAfter, 100);
    const dependent = ctx.spawn(onThread(2), tasks.add, failing as unknown as number, 1);
    // Queued on thread 2 while the failing task runs; it keeps the thread busy for 400 ms after,
    // when the failure's news makes the scheduler stop the dependent.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const busy = ctx.spawn(onThread(2), tasks.countThenBusy, runs, 400);
    expect((await failureOf(dependent)).message).toMatch(/failed on purpose/);
    expect(await busy).toBe('done');
    expect(Atomics.load(runs, 0)).toBe(1); // not re-run: its thread was not ended
    expect(workerOf(r, 2)).toBe(old);
  });
});

describe('threads: faults', () => {
  // Each test kills or ends threads of its own context only and waits mostly on them: they run
  // side by side (five at a time), each closing its context itself.
  const dies = [
    ['calls process.exit()', 'exitFirst', ONE_THREAD],
    ['throws an uncaught error asynchronously', 'throwLaterFirst', ONE_THREAD],
    [
      'runs out of memory under resourceLimits',
      'exhaustMemoryFirst',
      { ...ONE_THREAD, resourceLimits: { maxOldGenerationSizeMb: 32 } },
    ],
  ] as const;
  for (const [what, fn, options] of dies) {
    it.concurrent(`a task that ${what} takes its thread down; the thread is replaced and the task re-runs`, async ({
      expect,
    }) => {
      await using r = await ownRig(options);
      const { ctx, tasks } = r;
      const old = workerOf(r, 2);
      const exitCode = new Promise<number>((resolve) => old.worker.once('exit', resolve));
      const runs = sharedInts(1);
      const t = ctx.spawn(onThread(2), tasks[fn], runs, 1, `${fn} done`);
      expect(await t).toBe(`${fn} done`);
      expect(Atomics.load(runs, 0)).toBe(2);
      expect(await exitCode).not.toBe(0);
      await replaced(r, 2, old);
      expect(await ctx.spawn(onThread(2), tasks.whereAmI)).toBe('thread:1:2');
    }, 20_000);
  }

  it.concurrent('a task that kills its worker every time fails after 3 kills with WorkerLostError', async ({
    expect,
  }) => {
    await using r = await ownRig();
    const { ctx, tasks } = r;
    const runs = sharedInts(1);
    const t = ctx.spawn(tasks.exitFirst, runs, 1_000_000, 'never');
    const error = await failureOf(t);
    expect(error).toBeInstanceOf(DTaskFailedError);
    expect(error.cause).toBeInstanceOf(WorkerLostError);
    expect(error.cause.code).toBe('DTASK_WORKER_LOST');
    expect(Atomics.load(runs, 0)).toBe(3);
    // The context still works, on both threads.
    const where = await Promise.all([2, 3].map((n) => ctx.spawn(onThread(n), tasks.whereAmI)));
    expect(where).toEqual(['thread:1:2', 'thread:1:3']);
  });

  it.concurrent('a task that exits after an await every time fails alone after 3 deaths; the tasks beside it finish', async ({
    expect,
  }) => {
    // The thread names the task whose code called process.exit(), also after an await: the
    // slow tasks in flight beside it each time are not blamed with it.
    await using r = await ownRig(ONE_THREAD);
    const { ctx } = r;
    const slow = [0, 1, 2].map((i) =>
      ctx.spawn(onThread(2), (x: number) => new Promise((r) => setTimeout(() => r(x), 1000)), i),
    );
    await new Promise((r) => setTimeout(r, 50));
    const killer = ctx.spawn(onThread(2), async () => {
      await new Promise((r) => setTimeout(r, 20));
      process.exit(1);
    });
    const error = await failureOf(killer);
    expect(error.cause).toBeInstanceOf(WorkerLostError);
    expect(error.cause.message).toMatch(/3 workers that died, alone each time/);
    // The memory advice is the threads plugin's own option, not one cluster() rejects.
    expect(error.cause.message).toMatch(
      /threads\(\{ resourceLimits: \{ maxOldGenerationSizeMb \} \}\)/,
    );
    expect(error.cause.message).not.toMatch(/cluster\(/);
    expect(await Promise.all(slow)).toEqual([0, 1, 2]);
  }, 30_000);

  it.concurrent('other tasks in flight on a dead worker are re-run and give the right results', async ({
    expect,
  }) => {
    await using r = await ownRig();
    const { ctx, tasks } = r;
    const before = Array.from({ length: 10 }, (_, i) => ctx.spawn(onThread(2), tasks.sleep, 20, i));
    const runs = sharedInts(1);
    const killer = ctx.spawn(onThread(2), tasks.exitFirst, runs, 1, 'killer done');
    const after = Array.from({ length: 10 }, (_, i) => ctx.spawn(tasks.sleep, 5, i * 10));
    const scopedAfter = Array.from({ length: 5 }, (_, i) =>
      ctx.spawn(onThread(2), tasks.add, i, 100),
    );
    expect(await Promise.all(before)).toEqual([...Array(10).keys()]);
    expect(await killer).toBe('killer done');
    expect(await Promise.all(after)).toEqual([...Array(10).keys()].map((i) => i * 10));
    expect(await Promise.all(scopedAfter)).toEqual([100, 101, 102, 103, 104]);
  });

  it.concurrent('a thread ended while a diamond waits there, sent ahead behind its head: each task runs again after its input, the result is exact', async ({
    expect,
  }) => {
    await using r = await ownRig();
    const { ctx, tasks } = r;
    const runs = sharedInts(6);
    const head = ctx.spawn(onThread(2), tasks.holdFirst, runs, 5);
    const left = ctx.spawn(tasks.addCounted, runs, 3, head as unknown as number, 1);
    const right = ctx.spawn(tasks.addCounted, runs, 4, head as unknown as number, 2);
    const join = ctx.spawn(
      tasks.addCounted,
      runs,
      5,
      left as unknown as number,
      right as unknown as number,
    );
    const old = workerOf(r, 2);
    await until(() => Atomics.load(runs, 1) === 1, 10_000, 'the head to start');
    // The whole diamond is on thread 2: the head running, the rest sent ahead behind it.
    const sent = [...old.connection.inFlight.values()].map((t) => t.id).sort((a, b) => a - b);
    expect(sent).toEqual([head.id, left.id, right.id, join.id]);
    await old.worker.terminate();
    Atomics.store(runs, 2, 1); // (a wait that outlived the thread ends)
    Atomics.notify(runs, 2);
    expect(await join).toBe(13);
    // The head ran again; what waited behind it never began, and ran once.
    expect([Atomics.load(runs, 0), ...[3, 4, 5].map((i) => Atomics.load(runs, i))]).toEqual([
      2, 1, 1, 1,
    ]);
  });

  it.concurrent('tasks running on a thread terminated from outside are re-run elsewhere', async ({
    expect,
  }) => {
    await using r = await ownRig();
    const { ctx, tasks } = r;
    const many = Array.from({ length: 40 }, (_, i) => ctx.spawn(tasks.sleep, 10, i));
    await new Promise((resolve) => setTimeout(resolve, 15));
    await workerOf(r, 2).worker.terminate();
    expect(await Promise.all(many)).toEqual([...Array(40).keys()]);
  });

  it.concurrent('results held by a dead worker are recomputed from lineage when a dependent needs them', async ({
    expect,
  }) => {
    await using r = await ownRig();
    const { ctx, tasks } = r;
    const runs = sharedInts(1);
    const n = 50_000;
    const big = ctx.spawn(onThread(2), tasks.makeBigCounted, runs, n, 2);
    await big.wait();
    expect(Atomics.load(runs, 0)).toBe(1);
    const old = workerOf(r, 2);
    await old.worker.terminate();
    await replaced(r, 2, old);
    // A dependent spawned after the loss: the input is made again, then moved.
    expect(await ctx.spawn(onThread(3), tasks.sumArray, big)).toEqual([2 * n, n, 'thread:1:3']);
    expect(Atomics.load(runs, 0)).toBe(2);
    // Lost again, then fetched by the caller: recomputed once more.
    const again = workerOf(r, 2);
    await again.worker.terminate();
    await replaced(r, 2, again);
    const value = await big;
    expect(value.length).toBe(n);
    expect(value[0]).toBe(2);
    expect(Atomics.load(runs, 0)).toBe(3);
  });

  it.concurrent('a dependent waiting on a lost result held elsewhere gets it recomputed (chain across threads)', async ({
    expect,
  }) => {
    await using r = await ownRig();
    const { ctx, tasks } = r;
    const runs = sharedInts(1);
    const a = ctx.spawn(onThread(2), tasks.makeBigCounted, runs, 10_000, 1);
    await a.wait();
    const old = workerOf(r, 2);
    await old.worker.terminate();
    // Spawned right away: the loss may or may not have been noticed yet.
    const b = ctx.spawn(onThread(3), tasks.sumArray, a);
    const c = ctx.spawn(tasks.sumArray, a);
    expect((await b).slice(0, 2)).toEqual([10_000, 10_000]);
    expect((await c).slice(0, 2)).toEqual([10_000, 10_000]);
    expect(Atomics.load(runs, 0)).toBeGreaterThanOrEqual(2);
  });
});

/**
 * Running tasks with an input whose worker is gone, or whose holder no longer has it: what a
 * hang looks like. Each input held remotely is asked of its holder (`has it`).
 */
async function stuckTasks(ctx: Rig['ctx']): Promise<string[]> {
  const out: string[] = [];
  const s = ctx.scheduler as any;
  for (const t of s.running.values()) {
    const lost = t.args.filter((a: any) => a?.value?.isLost?.() === true).map((a: any) => a.id);
    const executor = s.slotOf(t.proc?.id)?.executor;
    const inputs: string[] = [];
    for (const a of t.args) {
      if (typeof a?.id !== 'number') continue;
      let line = `#${a.id} state=${a.state} flags=${a.flags} on ${a.proc?.id}`;
      const key = a.value?.key;
      if (key?.connection !== undefined) {
        const probe = await Promise.race([
          key.connection.fetch(key.key).then(
            () => 'has it',
            (e: Error) => e.message,
          ),
          new Promise((r) => setTimeout(r, 1000, 'no answer')),
        ]);
        line +=
          ` held by ${a.value.processor.id} (${key.connection === executor ? 'this' : 'another'}` +
          ` connection, closed: ${key.connection.isClosed}: ${probe})`;
      }
      inputs.push(line);
    }
    const where = executor?.inFlight
      ? `in its connection's flight: ${executor.inFlight.get(t.id) === t}, connection closed: ${executor.isClosed}`
      : 'no connection';
    out.push(
      `#${t.id} ${t.fn.name} on ${t.proc?.id} state=${t.state} flags=${t.flags} (${where}) ` +
        `lost inputs: ${lost}; inputs: ${inputs.join(', ')}`,
    );
  }
  return out;
}

describe('threads: chaos', () => {
  it('a 1,000-task DAG gives the exact result while a thread is killed every 100 ms (10 kills)', async () => {
    const r = await rig();
    const { ctx, tasks } = r;
    const LEAVES = 200;
    const MS = 2; // time each task holds its thread, so that the run outlasts the kills
    // Leaves i → diamond (2i and i+1, joined: 3i+1) → pairwise sums → total.
    let level = Array.from({ length: LEAVES }, (_, i) => {
      const x = ctx.spawn(tasks.leaf, i, MS);
      const left = ctx.spawn(tasks.twice, x, MS);
      const right = ctx.spawn(tasks.plusOne, x, MS);
      return ctx.spawn(tasks.addArrays, left, right, MS);
    });
    let count = LEAVES * 4;
    while (level.length > 1) {
      const next = [];
      for (let i = 0; i + 1 < level.length; i += 2) {
        next.push(ctx.spawn(tasks.addArrays, level[i], level[i + 1], MS));
        count++;
      }
      if (level.length % 2 === 1) next.push(level[level.length - 1]);
      level = next;
    }
    const result = ctx.spawn(tasks.total, level[0]);
    count++;
    expect(count).toBe(1000);

    let kills = 0;
    // Only a thread that serves is killed: one killed before it is ready counts as a failed
    // start, and where a start takes longer than the kill interval (a loaded machine) every
    // thread number would be given up after three, leaving none to kill.
    const ready = () => r.plugin.threadWorkers().filter((w) => !w.exited && w.connection.wasReady);
    const killer = (async () => {
      while (kills < 10) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await until(() => ready().length > 0, 120_000, 'a ready thread to kill');
        const live = ready();
        const victim = live[kills % live.length];
        kills++;
        await victim.worker.terminate();
      }
    })();
    // Nothing hangs: while every thread serves, some task finishes at least every STALL_MS.
    // Time while a thread starts does not count: on a loaded machine a start alone can take
    // seconds, and ten of them most of a minute (52-83 s for the DAG, which then finishes, with
    // the test at nice 19 beside CPU burners at load 30-56; a bound on the whole run failed there).
    const STALL_MS = 20_000;
    let watch: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => {
      let finished = -1;
      let stalled = 0;
      let last = performance.now();
      watch = setInterval(async () => {
        const now = performance.now();
        const f = ctx.stats().tasks.finished;
        const serving = r.plugin.threadWorkers().every((w) => !w.exited && w.connection.wasReady);
        if (f !== finished) stalled = 0;
        else if (serving) stalled += now - last;
        finished = f;
        last = now;
        if (stalled < STALL_MS) return;
        clearInterval(watch);
        const stuck = (await stuckTasks(ctx)).join('\n');
        reject(new Error(`the DAG hung (no task finished in ${STALL_MS} ms); running:\n${stuck}`));
      }, 100);
    });
    const value = await Promise.race([result, hung]).finally(() => clearInterval(watch));
    const killsDuringRun = kills;
    await killer;
    let expected = 0;
    for (let i = 0; i < LEAVES; i++) expected += 256 * (3 * i + 1);
    expect(value).toBe(expected);
    expect(kills).toBe(10);
    // The point of the test: the kills happen while the DAG runs.
    if (killsDuringRun < 10) console.warn(`chaos: the DAG finished after ${killsDuringRun} kills`);
    // The context still works after the chaos, on both threads.
    const where = await Promise.all([2, 3].map((n) => ctx.spawn(onThread(n), tasks.whereAmI)));
    expect(where).toEqual(['thread:1:2', 'thread:1:3']);
  }, 150_000);
});

describe('threads: long chains sent ahead', () => {
  it('a chain of 20,000 tasks on a thread with a 0.5 MB stack runs without the thread dying (regression: each task started inside the one before it, the stack overflowed and the thread was replaced again and again)', async () => {
    const r = await rig({ count: 1, resourceLimits: { stackSizeMb: 0.5 } });
    const { ctx, tasks } = r;
    const thread = workerOf(r, 2);
    const n = 20_000;
    let t = ctx.spawn(tasks.add, 0, 1);
    for (let i = 1; i < n; i++) t = ctx.spawn(tasks.add, t as unknown as number, 1);
    expect(await t).toBe(n);
    expect(workerOf(r, 2)).toBe(thread); // never replaced
    expect(thread.exited).toBe(false);
  }, 60_000);
});
