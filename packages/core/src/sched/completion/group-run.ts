import { SchedulingError } from '../../errors/errors.js';
import { DTask, isDTask, taskExtra } from '../../task/dtask.js';
import { groupOutput, isGroupParts, type StoredParts } from '../../task/group-parts.js';
import { NO_OPTIONS } from '../../task/options.js';
import { isRemoteResult, RemoteResult } from '../../task/remote-result.js';
import { TaskState } from '../../task/task-state.js';
import { inputArrived } from '../ready/link-task.js';
import type { SchedulerState } from '../scheduler-state.js';
import { failFromUpstream } from './fail-from-upstream.js';
import { finishTask } from './finish-task.js';
import { failTree } from './settle.js';

/**
 * A group task and the handles of its outputs (`spawnGroup`): its one listener, which settles
 * every handle when the group settles, and what makes the group again should its worker be
 * lost (its arguments as spawned).
 */
export class GroupRun {
  constructor(
    readonly s: SchedulerState,
    /** The group task. */
    readonly group: DTask<unknown>,
    /** A handle per output, in order (pending until the group settles). */
    readonly handles: DTask<unknown>[],
    /**
     * The group's arguments as spawned, to run it again; let go once its outputs were copied
     * to this thread (their lineage bounded, see `settleHandles`) or never needed (local).
     */
    public lineage: unknown[] | undefined,
  ) {}

  /** The group settled (`DTask.onSettled`'s object form: no closure per group). */
  onTaskSettled(): void {
    settleHandles(this);
  }
}

/** Each group task's run, for its handles' rare paths (a lost worker, a cancel). */
const runs = new WeakMap<DTask<unknown>, GroupRun>();

/** The run of `handle`, an output handle of a group spawned by `spawnGroup`; else undefined. */
export function groupRunOf(handle: DTask<unknown>): GroupRun | undefined {
  if (handle.fn !== groupOutput) return undefined;
  const group = handle.args[0];
  return isDTask(group) ? runs.get(group) : undefined;
}

/**
 * Makes `n` pending output handles of `group` (just spawned: `lineage` a copy of its arguments
 * as spawned, kept to run it again; `base` the first of the `n` ids reserved for its outputs),
 * and listens to it: when it settles, every handle settles in one loop. `proc`: where the group
 * will run, when its options name one processor (each handle's `processor` until it settles).
 */
export function groupHandles(
  s: SchedulerState,
  group: DTask<unknown>,
  lineage: unknown[],
  base: number,
  n: number,
  proc: DTask<unknown>['proc'],
): DTask<unknown>[] {
  const handles = new Array<DTask<unknown>>(n);
  const handleArgs = [group];
  for (let i = 0; i < n; i++) {
    const h = new DTask(s, base + i, groupOutput, handleArgs, group.options, NO_OPTIONS);
    h.state = TaskState.Pending;
    h.proc = proc;
    handles[i] = h;
  }
  const run = new GroupRun(s, group, handles, lineage);
  runs.set(group, run);
  group.onSettled(run);
  return handles;
}

/**
 * The group of `run` settled: each pending handle fails as a dependent of a failed task does
 * (the group named as its failed upstream), or is done with its output, its dependents told and
 * its listeners run. A group on a worker kept its outputs there, each under its handle's id
 * (`groupParts`): each handle's value names its output there, and the outputs are released
 * together once no handle is reachable. A group run on this thread returned them.
 */
export function settleHandles(run: GroupRun): void {
  const { s, group, handles } = run;
  if (group.state === TaskState.Failed) {
    for (const h of handles) if (h.state === TaskState.Pending) failFromUpstream(s, h, group);
    return;
  }
  const values = outputsOf(run);
  if (typeof values === 'string') {
    const error = new SchedulingError(values);
    for (const h of handles) {
      if (h.state === TaskState.Pending) failTree(h, error, (t) => finishTask(s, t), group);
    }
    return;
  }
  const depth = values.local ? 0 : depthOf(run);
  const bounded = depth > s.lineageDepth && group.options.resultScope === undefined;
  const proc = group.proc;
  const settled: DTask<unknown>[] = [];
  for (let i = 0; i < handles.length; i++) {
    const h = handles[i];
    if (h.state !== TaskState.Pending) continue; // cancelled, or taken home before a re-run
    h.value = values.of(i);
    h.state = TaskState.Done;
    h.proc = proc;
    h.lineage = bounded ? 0 : depth;
    settled.push(h);
  }
  if (values.local) run.lineage = undefined;
  else if (bounded) keepCopies(run);
  // Dependents told once every output is in: a task given two of them is made ready once.
  for (const h of settled) {
    const d = h.dependents;
    if (d !== undefined) {
      h.dependents = undefined;
      if (Array.isArray(d)) for (let i = 0; i < d.length; i++) inputArrived(s, d[i]);
      else inputArrived(s, d);
    }
    finishTask(s, h);
  }
}

/**
 * What a group's outputs are read and released through: its worker's connection (named by its
 * shape, since that class imports the completion phases).
 */
interface PartsHolder {
  fetch(key: number, take?: boolean): Promise<unknown>;
  readonly isLost: () => boolean;
  readonly held: {
    releaseAllWith(holder: object, keys: readonly number[]): void;
    readonly isInHost: (key: unknown) => boolean;
  };
}

/** What a settled group's handles get: each one's value, or why there is none. */
interface Outputs {
  /** True when the values are here (the group ran on this thread). */
  local: boolean;
  of(i: number): unknown;
}

/** The outputs of `run`'s finished group, or a message saying why it has none to give. */
function outputsOf(run: GroupRun): Outputs | string {
  const { s, group, handles } = run;
  const value = group.value;
  const n = handles.length;
  const wrong =
    `Group task ${group} must return groupParts(base, values) with its first argument as base ` +
    `and ${n} values (spawnGroup's n)`;
  if (isGroupParts(value)) {
    const { base, values } = value;
    if (base !== handles[0]?.id || values.length !== n) return wrong;
    return { local: true, of: (i) => values[i] };
  }
  const stored = value as StoredParts | undefined;
  const proc = group.proc;
  const executor = proc === undefined ? undefined : s.slotById.get(proc.id)?.executor;
  const connection =
    executor !== undefined && 'held' in executor ? (executor as unknown as PartsHolder) : undefined;
  if (
    typeof stored?.base !== 'number' ||
    !Array.isArray(stored.sizes) ||
    stored.base !== handles[0]?.id ||
    stored.sizes.length !== n
  ) {
    return wrong;
  }
  if (connection === undefined) {
    return `Group task ${group} kept its outputs where no worker connection reads them`;
  }
  const { base, sizes } = stored;
  // Held by each output's fetch functions: collected once no handle is reachable, and then
  // the outputs are released together (one cell per group, not one per output).
  const holder = { connection };
  const keys = new Array<number>(n);
  for (let i = 0; i < n; i++) keys[i] = base + i;
  connection.held.releaseAllWith(holder, keys);
  const { isLost } = connection;
  const isInHost = connection.held.isInHost;
  return {
    local: false,
    of: (i) => {
      const key = base + i;
      return new RemoteResult(
        proc!,
        () => holder.connection.fetch(key),
        sizes[i],
        { connection, key },
        isLost,
        () => holder.connection.fetch(key, true),
        isInHost,
      );
    },
  };
}

/** The longest chain of worker-held results the group's outputs span (`noteLineage`'s rule). */
function depthOf(run: GroupRun): number {
  let depth = 0;
  const args = run.lineage;
  if (args !== undefined) {
    for (const a of args) {
      if (isDTask(a) && a.owner === run.s && a.lineage > depth) depth = a.lineage;
    }
  }
  return depth + 1;
}

/**
 * The group's outputs span a chain longer than the scheduler's lineage depth: a copy of each
 * comes to this thread, and once all have, the group's arguments are let go (a loss of its
 * worker is then answered with the copies, as `noteLineage` does for one result).
 */
function keepCopies(run: GroupRun): void {
  const pulls: Promise<unknown>[] = [];
  const held: [DTask<unknown>, RemoteResult][] = [];
  for (const h of run.handles) {
    const v = h.value;
    if (h.state !== TaskState.Done || !isRemoteResult(v)) continue;
    held.push([h, v]);
    pulls.push(v.fetch());
  }
  Promise.all(pulls).then(
    (copies) => {
      let all = true;
      for (let i = 0; i < held.length; i++) {
        const [h, v] = held[i];
        if (h.value === v && h.state === TaskState.Done) taskExtra(h).kept = { value: copies[i] };
        else all = false;
      }
      if (all) run.lineage = undefined; // else run again meanwhile: the lineage stays
    },
    () => {
      // Its worker died first: the lineage stays, and a re-run of the group uses it.
    },
  );
}
