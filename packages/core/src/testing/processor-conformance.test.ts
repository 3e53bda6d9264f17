import { describe, expect, it } from 'vitest';
import { ThreadProc } from '../processor/thread-proc.js';
import { Context } from '../registry/context.js';
import { FakeProcessor, fakeProcessorPlugin } from './fake-processor.js';
import { processorConformance } from './processor-conformance.js';
import { processorProbe } from './processor-probe.js';

processorConformance(
  'main thread ThreadProc(1, 1)',
  async () => ({ context: new Context(), processor: new ThreadProc(1, 1) }),
  { describe, it },
);

processorConformance(
  'FakeProcessor',
  async () => {
    const processor = new FakeProcessor({ worker: 2, index: 1, compatible: [processorProbe] });
    return { context: new Context({ plugins: [fakeProcessorPlugin([processor])] }), processor };
  },
  { describe, it },
);

/** Runs the suite with a runner that records failures instead of reporting them. */
async function failures(make: () => FakeProcessor): Promise<string[]> {
  const tests: [string, () => Promise<void>][] = [];
  processorConformance(
    'probe',
    async () => {
      const processor = make();
      return { context: new Context({ plugins: [fakeProcessorPlugin([processor])] }), processor };
    },
    { describe: (_name, body) => body(), it: (title, body) => tests.push([title, body]) },
  );
  const failed: string[] = [];
  for (const [title, body] of tests) await body().catch(() => failed.push(title));
  return failed;
}

describe('processorConformance catches broken processors', () => {
  it('a processor that runs tasks but loses Float64Arrays fails the round trip', async () => {
    class Lossy extends FakeProcessor {
      override async execute(f: (...a: any[]) => unknown, args: unknown[]) {
        const v = await super.execute(f, args);
        return v instanceof Float64Array ? [...v] : v;
      }
    }
    const failed = await failures(() => new Lossy({ worker: 3, compatible: [processorProbe] }));
    expect(failed).toEqual([
      'values round-trip: number, string, object, Float64Array',
      'fetchAll gathers values in order, held ones too, and rejects on a failure',
    ]);
  });

  it('a processor with no parent fails the getParent chain', async () => {
    class Orphan extends FakeProcessor {
      override getParent() {
        return undefined;
      }
    }
    const failed = await failures(() => new Orphan({ worker: 4, compatible: [processorProbe] }));
    expect(failed).toEqual(['getParent() chain ends in an OS process with no parent']);
  });

  it('a processor that declares nothing compatible fails the task tests', async () => {
    const failed = await failures(() => new FakeProcessor({ worker: 5 }));
    expect(failed).toContain('a task scoped exactly to it runs there, inside a task');
    expect(failed).toContain('a dependent chain of 100 tasks is right');
  });
});
