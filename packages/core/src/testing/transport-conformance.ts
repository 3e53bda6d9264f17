import assert from 'node:assert/strict';
import type { Transport } from '../protocol/transport.js';
import type { ConformanceRunner } from './storage-conformance.js';

/** Makes two connected transport ends; `dispose` frees what the pair holds (ports, threads). */
export type MakeTransportPair = () =>
  | { ends: [Transport, Transport]; dispose?: () => unknown }
  | Promise<{ ends: [Transport, Transport]; dispose?: () => unknown }>;

/** Resolves after `ms` milliseconds of real time (event-loop turns included). */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Registers the shared tests every `Transport` must pass, under `describe(name)`: messages
 * arrive cloned and in order, transferred buffers leave the sender, `poll` (when the transport
 * has it) hands over waiting messages synchronously and exactly once, and closing one end
 * tells both. Called from each transport's own test file (core's in-memory pair, the threads
 * plugin's `MessagePort` transport).
 */
export function transportConformance(
  name: string,
  makePair: MakeTransportPair,
  runner: ConformanceRunner,
): void {
  const { describe, it } = runner;
  const test = (title: string, body: (a: Transport, b: Transport) => Promise<void>) =>
    it(title, async () => {
      const { ends, dispose } = await makePair();
      try {
        await body(ends[0], ends[1]);
      } finally {
        await dispose?.();
      }
    });

  describe(`${name} (transport conformance)`, () => {
    test('delivers clones, in order', async (a, b) => {
      const got: unknown[] = [];
      b.onMessage((m) => got.push(m));
      const sent = { n: 1, list: [1, 2, 3] };
      for (let i = 0; i < 5; i++) a.send({ ...sent, n: i });
      await until(() => got.length === 5);
      assert.deepEqual(
        got.map((m) => (m as { n: number }).n),
        [0, 1, 2, 3, 4],
      );
      assert.notEqual(got[0], sent);
      assert.deepEqual((got[0] as typeof sent).list, [1, 2, 3]);
    });

    test('a transferred buffer leaves the sender', async (a, b) => {
      const got: unknown[] = [];
      b.onMessage((m) => got.push(m));
      const bytes = new Uint8Array([1, 2, 3]);
      a.send(bytes, [bytes.buffer]);
      assert.equal(bytes.byteLength, 0);
      await until(() => got.length === 1);
      assert.deepEqual([...(got[0] as Uint8Array)], [1, 2, 3]);
    });

    test('poll hands over the waiting messages now, each once', async (a, b) => {
      if (b.poll === undefined) {
        console.warn(`${name}: poll() skipped, the transport does not offer it (it is optional)`);
        return;
      }
      const got: unknown[] = [];
      b.onMessage((m) => got.push(m));
      assert.equal(b.poll(), false);
      a.send('one');
      a.send('two');
      // Give the message time to reach the other end without letting this thread's event
      // loop deliver it (a blocking wait, as a spawning region's code would be).
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
      assert.equal(b.poll(), true);
      assert.deepEqual(got, ['one', 'two']);
      a.send('three');
      await until(() => got.length === 3);
      await sleep(20);
      assert.deepEqual(got, ['one', 'two', 'three']);
    });

    test('closing one end tells both ends', async (a, b) => {
      let closedA = 0;
      let closedB = 0;
      a.onClose(() => closedA++);
      b.onClose(() => closedB++);
      a.close();
      await until(() => closedA === 1 && closedB === 1);
      await sleep(20);
      assert.equal(closedA, 1);
      assert.equal(closedB, 1);
    });
  });
}

/** Waits (up to 2 s) for `condition`, turning the event loop. */
async function until(condition: () => boolean): Promise<void> {
  const end = Date.now() + 2000;
  while (!condition()) {
    if (Date.now() > end) throw new Error('transport conformance: timed out waiting');
    await sleep(1);
  }
}
