import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CancelledError, SchedulingError, WorkerLostError } from '../errors/errors.js';
import type { Processor } from '../processor/processor.js';
import type { Context } from '../registry/context.js';
import { everywhere } from '../registry/everywhere.js';
import { ExactScope } from '../scope/exact-scope.js';
import type { ConformanceRunner } from './storage-conformance.js';

/** A context whose plugin hosts workers, as `workerHostConformance` drives it. */
export interface WorkerHostUnderTest {
  /** A ready context with the plugin under test. */
  context: Context;
  /** A processor the plugin runs in a worker of its own (a thread, a process, a device thread). */
  processor: Processor;
  /**
   * The worker running `processor` now: any object, a new one once it was replaced; undefined
   * once the plugin gave the processor up.
   */
  current(): object | undefined;
  /** Ends that worker from outside, as a crash would (terminate a thread, SIGKILL a process). */
  kill(worker: object): void | Promise<void>;
}

/** Workers define the API as the global `dtask` (functions that travel as source use it). */
type WithApi = { dtask: { taskProcessor(): { id: string } } };

/** The error a task's rejection carries: the error itself, or the cause it wraps. */
function reasonOf(error: unknown): unknown {
  const cause = (error as { cause?: unknown })?.cause;
  return cause instanceof Error ? cause : error;
}

async function until(done: () => boolean, ms: number, what: string, every = 2): Promise<void> {
  const end = performance.now() + ms;
  while (!done()) {
    if (performance.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, every));
  }
}

/**
 * Registers the shared tests every plugin that hosts workers must pass (through core's
 * `WorkerPool`), under `describe(name)`: a worker that crashes is replaced and the task it held
 * runs again; one whose replacements keep dying while they start is given up, and tasks scoped
 * to it fail with a `SchedulingError` naming why; `close()` fails the tasks still on a worker
 * (`CancelledError` for those it had not started); an `everywhere` module reaches a worker
 * started later; and none of it leaves an unhandled rejection. `make` returns a fresh context
 * per test; each test closes it. Assertions use `node:assert/strict`, so any runner works.
 */
export function workerHostConformance(
  name: string,
  make: () => Promise<WorkerHostUnderTest>,
  runner: ConformanceRunner,
): void {
  const { describe, it } = runner;
  const test = (title: string, body: (u: WorkerHostUnderTest) => Promise<void>) =>
    it(title, async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      const u = await make();
      try {
        await body(u);
      } finally {
        await u.context.close();
        // Rejections that nobody handled surface a turn or two after they happen.
        await new Promise((resolve) => setTimeout(resolve, 50));
        process.off('unhandledRejection', onUnhandled);
      }
      assert.deepEqual(unhandled.map(String), [], 'promises rejected with nobody to handle them');
    });
  const on = (u: WorkerHostUnderTest) => ({ scope: new ExactScope(u.processor) });

  describe(name, () => {
    test('a worker that crashes is replaced and the task it held runs again', async (u) => {
      const first = u.current();
      assert.ok(first, 'the processor has a worker');
      // Its first run marks its start with a file (the worker may be a thread or a process) and
      // holds the worker until it is killed; the run again finds the mark and returns. (After a
      // fixed wait, a loaded machine could kill the worker after the task had ended.)
      const marks = mkdtempSync(join(tmpdir(), 'dtask-worker-host-'));
      const mark = join(marks, 'began');
      try {
        const task = u.context.spawn(
          on(u),
          (file: string) => {
            const fs = process.getBuiltinModule('node:fs');
            if (fs.existsSync(file)) return 42;
            fs.writeFileSync(file, '');
            return new Promise<number>(() => {});
          },
          mark,
        );
        await until(() => existsSync(mark), 20_000, 'the task to begin');
        await u.kill(first);
        assert.equal(await task, 42);
      } finally {
        rmSync(marks, { recursive: true, force: true });
      }
      assert.ok(u.current() && u.current() !== first, 'a new worker runs the processor');
      assert.equal(await u.context.spawn(on(u), () => 'again'), 'again');
    });

    test('a worker whose replacements keep dying while they start is given up', async (u) => {
      const warned = new Promise<Error>((resolve) => process.once('warning', resolve));
      const killed = new Set<object>();
      let waiting: Promise<unknown> | undefined;
      await until(
        () => {
          const w = u.current();
          if (w === undefined) return true;
          if (!killed.has(w)) {
            killed.add(w);
            void u.kill(w);
            // A task that waits through the replacements dying.
            waiting ??= u.context
              .spawn(on(u), () => 1)
              .then(
                () => undefined,
                (e: unknown) => e,
              );
          }
          return false;
        },
        30_000,
        'the processor to be given up',
      );
      assert.match((await warned).message, /not replaced again/);
      const later = u.context
        .spawn(on(u), () => 1)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      // The task that waited fails too: with the SchedulingError, or, where it reached the
      // dying workers, with the WorkerLostError of a task whose workers kept dying.
      const first = reasonOf(await waiting);
      assert.ok(
        SchedulingError.isInstance(first) || WorkerLostError.isInstance(first),
        `a SchedulingError or WorkerLostError, got ${String(first)}`,
      );
      const reason = reasonOf(await later);
      assert.ok(SchedulingError.isInstance(reason), `a SchedulingError, got ${String(reason)}`);
      assert.match((reason as Error).message, new RegExp(`${u.processor.id} was removed: .+`));
    });

    test('close() fails the tasks still on a worker: those it had not started are cancelled', async (u) => {
      const outcome = (t: PromiseLike<unknown>) =>
        Promise.resolve(t).then(
          (v) => v,
          (e: unknown) => reasonOf(e),
        );
      // A task run first: the worker serves, so the next one starts as soon as it arrives.
      await u.context.spawn(on(u), () => 1);
      // Each of the next two marks its start with a file (the worker may be a thread or a
      // process), which the close waits for: after a fixed wait a loaded machine had closed
      // before the worker started the first.
      const marks = mkdtempSync(join(tmpdir(), 'dtask-worker-host-'));
      const mark = (name: string) => join(marks, name);
      const started = outcome(
        u.context.spawn(
          on(u),
          (file: string) => {
            process.getBuiltinModule('node:fs').writeFileSync(file, '');
            return new Promise(() => {});
          },
          mark('started'),
        ),
      );
      const busy = outcome(
        u.context.spawn(
          on(u),
          (file: string) => {
            process.getBuiltinModule('node:fs').writeFileSync(file, '');
            // Holds the worker (a blocking wait), so the task behind it waits there unstarted.
            Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400);
            return 'finished';
          },
          mark('busy'),
        ),
      );
      const queued = outcome(
        u.context.spawn(on(u), () => (globalThis as unknown as WithApi).dtask.taskProcessor().id),
      );
      try {
        await until(
          () => existsSync(mark('started')) && existsSync(mark('busy')),
          20_000,
          'the worker to start both tasks',
        );
      } finally {
        rmSync(marks, { recursive: true, force: true });
      }
      await u.context.close();
      const lost = await started;
      assert.ok(WorkerLostError.isInstance(lost), `WorkerLostError, got ${String(lost)}`);
      assert.equal(await busy, 'finished', 'a task that ends while closing keeps its value');
      // Behind the busy task: cancelled, unless the worker took it up before the close reached
      // it; never run elsewhere (such as on the main thread) once the context closed.
      const queuedEnd = await queued;
      assert.ok(
        CancelledError.isInstance(queuedEnd) || queuedEnd === u.processor.id,
        `CancelledError, got ${String(queuedEnd)}`,
      );
    });

    test('an everywhere module reaches a worker started later', async (u) => {
      const dir = mkdtempSync(join(tmpdir(), 'dtask-worker-host-'));
      try {
        const file = join(dir, 'mark.mjs');
        writeFileSync(file, "globalThis.dtaskWorkerHostMark = 'loaded';\nexport const mark = 1;\n");
        await everywhere(pathToFileURL(file), u.context);
        const mark = () => (globalThis as { dtaskWorkerHostMark?: string }).dtaskWorkerHostMark;
        assert.equal(await u.context.spawn(on(u), mark), 'loaded');
        const first = u.current()!;
        await u.kill(first);
        await until(() => u.current() !== first, 20_000, 'a new worker', 10);
        assert.equal(await u.context.spawn(on(u), mark), 'loaded');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
