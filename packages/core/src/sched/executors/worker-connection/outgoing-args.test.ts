import { describe, expect, it } from 'vitest';
import type { Processor } from '../../../processor/processor.js';
import { describeLent } from '../../../protocol/lent-chunk.js';
import type { DTask } from '../../../task/dtask.js';
import { RemoteResult } from '../../../task/remote-result.js';
import { TaskState } from '../../../task/task-state.js';
import { type ArgTarget, hasTaskOrChunkArgs, planArgs } from './outgoing-args.js';

const here = { id: 'thread:1:2' } as Processor;
const other = { id: 'thread:1:3' } as Processor;

/** A task record with what planning reads (brand, state, value, proc, id, owner's fetch). */
function input(id: number, state: TaskState, value?: unknown, proc?: Processor) {
  return {
    [Symbol.for('dtask.task')]: true,
    id,
    state,
    value,
    proc,
    fetch: () => Promise.resolve(`fetched #${id}`),
  } as unknown as DTask<unknown>;
}

/** A remote result on `holder` with key `key`; `ctx` names the context that holds it. */
function remote(holder: string, key: number, ctx = 'mine', lost = false) {
  const r = new RemoteResult(
    here,
    () => Promise.resolve(`copy of ${key}`),
    8,
    { holder, key, ctx },
    () => lost,
  );
  return r;
}

/** The runtime on `here`: it holds results keyed `''`, reaches peers, and is in context `mine`. */
const target: ArgTarget = {
  processor: here,
  linked: (v) => (v.key as { ctx: string }).ctx === 'mine',
  refOf: (v) => {
    const { holder, key } = v.key as { holder: string; key: number };
    return [holder === here.id ? '' : holder, key];
  },
  lend: (chunk) => describeLent(-1, chunk),
};

const task = (...args: unknown[]) => ({ args, options: {} }) as unknown as DTask<unknown>;

describe('planArgs', () => {
  it('values travel as they are, results held there or by a peer by reference', () => {
    const t = task(
      1,
      input(10, TaskState.Done, 'small'),
      input(11, TaskState.Done, remote(here.id, 11)),
      input(12, TaskState.Done, remote(other.id, 12)),
      input(13, TaskState.Running, undefined, here), // being made there: sent ahead
    );
    const args = t.args.slice();
    const plan = planArgs(t, target, args);
    expect(plan.lost).toBe(-1);
    expect(plan.waits).toBeUndefined();
    expect(plan.refs).toEqual([
      [2, 11, ''],
      [3, 12, other.id],
      [4, 13, ''],
    ]);
    expect(args).toEqual([1, 'small', null, null, null]);
  });

  it('results on their way here, and other contexts’ results, are brought here first', async () => {
    const moving = remote(here.id, 20);
    moving.moving = Promise.resolve('moved #20');
    const t = task(
      input(20, TaskState.Done, moving),
      input(21, TaskState.Done, remote(here.id, 21, 'another context')),
    );
    const args = t.args.slice();
    const plan = planArgs(t, target, args);
    expect(plan.refs).toBeUndefined();
    expect(plan.waits).toHaveLength(2);
    await Promise.all(plan.waits!);
    // The moving one is shared with its transfer; the other context's comes through its owner.
    expect(args).toEqual(['moved #20', 'fetched #21']);
  });

  it('a lost input stops planning and names its index', () => {
    const t = task(0, input(30, TaskState.Done, remote(other.id, 30, 'mine', true)));
    expect(planArgs(t, target, t.args.slice()).lost).toBe(1);
  });

  it('an input that runs again elsewhere (its result was lost meanwhile) stops planning too', () => {
    // Planned again after a wait for another input: meanwhile this one lost its result and
    // was put back to run, on another processor or not placed yet. Its value is not sent.
    for (const proc of [other, undefined]) {
      const t = task(input(31, TaskState.Done, 'v'), input(32, TaskState.Queued, undefined, proc));
      const args = t.args.slice();
      expect(planArgs(t, target, args).lost).toBe(1);
    }
  });

  it('plans only the indices it is given (references again after a wait)', () => {
    const held = input(40, TaskState.Done, remote(here.id, 40));
    const t = task(held, input(41, TaskState.Done, 'v'));
    const args = ['kept', 'kept'];
    const plan = planArgs(t, target, args, [0]);
    expect(plan.refs).toEqual([[0, 40, '']]);
    expect(args).toEqual([null, 'kept']);
  });

  it('hasTaskOrChunkArgs tells plain argument lists apart', () => {
    expect(hasTaskOrChunkArgs(task(1, 'a', { x: 1 }, null))).toBe(false);
    expect(hasTaskOrChunkArgs(task(1, input(1, TaskState.Done, 2)))).toBe(true);
  });
});
