import { afterEach, describe, expect, it } from 'vitest';
import { isCompatible } from './dispatch.js';
import { OSProc } from './os-proc.js';
import { Processor } from './processor.js';
import { ThreadProc } from './thread-proc.js';
import { topology } from './topology.js';

/** A processor that runs nothing, like a GPU without a kernel for the function. */
class NeverProc extends Processor {
  readonly kind = 'never';
  readonly id: string;
  constructor(readonly worker: number) {
    super();
    this.id = `never:${worker}`;
  }
}

const WORKER = 917;
const added: Processor[] = [];
afterEach(() => {
  for (const proc of added.splice(0)) topology().remove(proc);
});

describe('OSProc.isCompatible', () => {
  it('is true when one of its child processors is compatible (regression: it was always false)', () => {
    const thread = new ThreadProc(WORKER, 1);
    topology().add(thread);
    added.push(thread);
    expect(isCompatible(new OSProc(WORKER, 'host'), {}, () => 1, [])).toBe(true);
  });

  it('is false when no child is compatible, or there are no children', () => {
    expect(isCompatible(new OSProc(WORKER, 'host'), {}, () => 1, [])).toBe(false);
    const never = new NeverProc(WORKER);
    topology().add(never);
    added.push(never);
    expect(isCompatible(new OSProc(WORKER, 'host'), {}, () => 1, [])).toBe(false);
  });
});
