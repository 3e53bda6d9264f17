// Which processors a task may run on, and what is kept between tasks: the answer for one scope
// object, shared by many tasks, is kept while every processor is a thread, and forgotten when
// the processors change.
import { describe, expect, it } from 'vitest';
import { ThreadProc } from '../../processor/thread-proc.js';
import { scope } from '../../scope/scope-builder.js';
import type { DTask } from '../../task/dtask.js';
import { FakeProcessor } from '../../testing/fake-processor.js';
import type { Executor } from '../dispatch/executor.js';
import { CandidateSlots } from './candidate-slots.js';
import { ProcSlot } from './proc-slot.js';

const executor = { inline: false } as unknown as Executor;
const slotOf = (worker: number) => new ProcSlot(new ThreadProc(worker, 1), executor);
/** A task with these options, as placement reads it. */
const taskWith = (options: object) =>
  ({ options, args: [], flags: 0, fn: () => 0, id: 1 }) as unknown as DTask<unknown>;

describe('CandidateSlots', () => {
  it('keeps the answer for a scope object many tasks share, and forgets it when processors change', () => {
    const candidates = new CandidateSlots();
    const slots = [2, 3, 4].map(slotOf);
    const on = { scope: scope({ workers: [3, 4] }) };
    const first = candidates.of(taskWith(on), slots);
    expect(first.map((s) => s.proc.id)).toEqual(['thread:3:1', 'thread:4:1']);
    expect(candidates.of(taskWith(on), slots)).toBe(first); // kept
    // Another object with the same meaning is judged on its own, and as well.
    const again = candidates.of(taskWith({ scope: scope({ workers: [3, 4] }) }), slots);
    expect(again.map((s) => s.proc.id)).toEqual(['thread:3:1', 'thread:4:1']);
    // Worker 4 goes, worker 5 comes: the scheduler says so (`invalidate`).
    const changed = [slots[0], slots[1], slotOf(5)];
    candidates.invalidate();
    expect(candidates.of(taskWith(on), changed).map((s) => s.proc.id)).toEqual(['thread:3:1']);
  });

  it('judges each task anew once a processor is not a thread (it may refuse the function)', () => {
    const candidates = new CandidateSlots();
    const fake = new FakeProcessor({ worker: 3, index: 1, compatible: () => true });
    const slots = [slotOf(2), new ProcSlot(fake, executor)];
    const on = { scope: scope({ worker: 3 }) };
    const first = candidates.of(taskWith(on), slots);
    expect(first.map((s) => s.proc.id)).toEqual([fake.id]);
    expect(candidates.of(taskWith(on), slots)).not.toBe(first);
  });
});
