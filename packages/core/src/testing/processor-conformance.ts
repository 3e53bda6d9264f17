import assert from 'node:assert/strict';
import { DTaskFailedError } from '../errors/task-failed-error.js';
import type { Processor } from '../processor/processor.js';
import { INLINE_RESULT_BYTES } from '../protocol/protocol.js';
import type { Context } from '../registry/context.js';
import { ExactScope } from '../scope/exact-scope.js';
import type { DTask } from '../task/dtask.js';
import { fetchAll } from '../task/fetch-all.js';
import { type ProbeOp, processorProbe } from './processor-probe.js';
import type { ConformanceRunner } from './storage-conformance.js';
import { type ConformanceSharing, type SharingRunner, suiteSetup } from './suite-setup.js';

/** What the factory of `processorConformance` returns for each test. */
export interface ProcessorUnderTest {
  /** A context in which `processor` is a compute processor. */
  context: Context;
  /** The processor under test (or any object with its id). */
  processor: Processor;
  /** Ends what the factory started; the suite closes `context` itself afterwards. */
  cleanup?: () => unknown;
}

type Probe = (op: ProbeOp, a?: unknown, b?: unknown) => DTask<unknown>;

/**
 * Registers the shared tests every `Processor` must pass, under `describe(name)`; called from
 * each processor's own test file (the main thread's, `FakeProcessor`'s, plugins'). `make`
 * returns a fresh context holding the processor for each test; every task the suite spawns
 * runs `processorProbe` scoped exactly to the processor, so that is the one function it must
 * declare compatible. With `options.share`, the tests share one context instead (see
 * `ConformanceSharing`). Assertions use `node:assert/strict`, so any runner works.
 */
export function processorConformance(
  name: string,
  make: () => Promise<ProcessorUnderTest>,
  runner: Pick<ConformanceRunner, 'describe' | 'it'> & SharingRunner,
  options: ConformanceSharing = {},
): void {
  const { describe, it } = runner;
  let withSetup: ReturnType<typeof suiteSetup<ProcessorUnderTest>>;
  const test = (title: string, body: (proc: Processor, probe: Probe) => Promise<void>) =>
    it(title, () =>
      withSetup(({ context, processor }) => {
        const scope = new ExactScope(processor);
        const probe: Probe = (op, a, b) => context.spawn({ scope }, processorProbe, op, a, b);
        return body(processor, probe);
      }),
    );

  describe(`Processor conformance: ${name}`, () => {
    withSetup = suiteSetup(make, runner, options.share);
    test('has a stable string id and compares equal by id', async (proc) => {
      assert.equal(typeof proc.id, 'string');
      assert.ok(proc.id.length > 0, 'id must not be empty');
      assert.equal(proc.id, proc.id, 'id must be stable');
      assert.equal(typeof proc.kind, 'string');
      assert.ok(Number.isInteger(proc.worker) && proc.worker > 0, 'worker is a positive integer');
      const twin = { id: proc.id, worker: proc.worker, getProcessors: () => [] };
      assert.ok(proc.equals(twin), 'equals() compares by id');
      assert.ok(
        !proc.equals({ ...twin, id: `${proc.id}-other` }),
        'another id is another processor',
      );
      assert.ok(new ExactScope(proc).contains(twin as unknown as Processor));
    });

    test('getParent() chain ends in an OS process with no parent', async (proc) => {
      let root: Processor = proc;
      for (let depth = 0; ; depth++) {
        assert.ok(depth < 16, 'getParent() chain is too deep (a cycle?)');
        const parent = root.getParent();
        if (parent === undefined) break;
        root = parent;
      }
      assert.equal(root.kind, 'os', `the root ${root.id} must be an OSProc`);
      assert.equal(root.worker, proc.worker, 'the root is the processor’s own OS process');
      assert.notEqual(root.id, proc.id, 'a compute processor is not its own root');
      assert.ok(
        root.getProcessors().some((p) => p.id === proc.id),
        `the root ${root.id} lists ${proc.id} among its processors`,
      );
    });

    test('a leaf’s getProcessors() contains itself', async (proc) => {
      assert.ok(proc.getProcessors().some((p) => p.id === proc.id));
    });

    test('memorySpaces() is a non-empty array of spaces with ids', async (proc) => {
      const spaces = proc.memorySpaces();
      assert.ok(Array.isArray(spaces) && spaces.length > 0, 'at least one memory space');
      for (const s of spaces) {
        assert.equal(typeof s.id, 'string');
        assert.ok(s.id.length > 0);
        assert.equal(typeof s.kind, 'string');
        assert.equal(typeof s.worker, 'number');
      }
    });

    test('a task scoped exactly to it runs there, inside a task', async (proc, probe) => {
      assert.equal(await probe('where'), proc.id);
      assert.equal(await probe('in-task'), true);
    });

    test('values round-trip: number, string, object, Float64Array', async (_proc, probe) => {
      assert.equal(await probe('echo', 42.5), 42.5);
      assert.equal(await probe('echo', 'héllo'), 'héllo');
      const obj = { a: 1, b: ['x', { c: null }], d: true };
      assert.deepEqual(await probe('echo', obj), obj);
      const got = await probe('echo', new Float64Array([1.5, -2, Math.PI]));
      assert.ok(got instanceof Float64Array, 'a Float64Array stays a Float64Array');
      assert.deepEqual([...got], [1.5, -2, Math.PI]);
    });

    test('an error inside fails with DTaskFailedError keeping the message', async (_p, probe) => {
      const error = await probe('throw', 'conformance boom').then(
        () => assert.fail('the task should have failed'),
        (e: unknown) => e,
      );
      assert.ok(DTaskFailedError.isInstance(error), 'DTaskFailedError');
      assert.match(String((error.cause as Error)?.message), /conformance boom/);
      assert.equal(await probe('echo', 'after'), 'after', 'it keeps running tasks afterwards');
    });

    test('200 tasks all complete', async (_proc, probe) => {
      const tasks = Array.from({ length: 200 }, (_, i) => probe('echo', i));
      const values = await Promise.all(tasks);
      assert.deepEqual(
        values,
        Array.from({ length: 200 }, (_, i) => i),
      );
    });

    test('fetchAll gathers values in order, held ones too, and rejects on a failure', async (_p, probe) => {
      const tasks = Array.from({ length: 200 }, (_, i) => probe('echo', i));
      const expected = Array.from({ length: 200 }, (_, i) => i);
      assert.deepEqual(await fetchAll(tasks), expected);
      assert.deepEqual(await fetchAll(tasks), expected, 'finished tasks gather again');
      // Results over INLINE_RESULT_BYTES stay on a worker until fetched.
      const big = [1, 2].map((x) => probe('echo', new Float64Array(INLINE_RESULT_BYTES).fill(x)));
      const [one, two] = (await fetchAll(big)) as Float64Array[];
      assert.ok(one instanceof Float64Array && two instanceof Float64Array, 'typed arrays');
      assert.deepEqual(
        [one.length, one[0], two[INLINE_RESULT_BYTES - 1]],
        [INLINE_RESULT_BYTES, 1, 2],
      );
      const failing = [probe('echo', 1), probe('throw', 'gathered boom'), probe('echo', 3)];
      const error = await fetchAll(failing).then(
        () => assert.fail('fetchAll should have rejected'),
        (e: unknown) => e,
      );
      assert.ok(DTaskFailedError.isInstance(error), 'DTaskFailedError');
      assert.match(String((error.cause as Error)?.message), /gathered boom/);
      assert.deepEqual(await fetchAll([]), []);
    });

    test('a dependent chain of 100 tasks is right', async (_proc, probe) => {
      let t = probe('echo', 0);
      for (let i = 0; i < 100; i++) t = probe('add', t, 1);
      assert.equal(await t, 100);
    });
  });
}
