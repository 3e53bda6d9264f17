import type { TransferListItem } from 'node:worker_threads';
import type { FnRef } from '../travel/function-ref.js';
import type { Batcher } from './batcher.js';
import {
  type ArgRefs,
  DONE,
  DONES,
  type DonePack,
  isPlainPrimitive,
  type PlainOptions,
  RUN,
  RUNS,
  type RunOptions,
  type RunPack,
} from './protocol.js';

/** The pack `appendRun` last grew, and where the group it grew starts there (see `RunPack`). */
let runPack: unknown[] | undefined;
let runGroup = 0;

/**
 * Queues "run task `id`" in the run pack at the end of `out`'s next batch (a new one if the
 * last message queued is something else, so that messages keep their order). Returns false,
 * queueing nothing, when an argument is not a plain primitive: such a task travels as a
 * `RunRecord`, which `Batcher` can send alone should it fail to clone.
 */
export function appendRun<M>(
  out: Batcher<M>,
  id: number,
  fn: FnRef | number,
  args: readonly unknown[],
): boolean {
  const n = args.length;
  for (let i = 0; i < n; i++) if (!isPlainPrimitive(args[i])) return false;
  const pack = openPack(out, RUNS);
  const g = runGroup;
  if (pack === runPack && pack[g] === fn && pack[g + 1] === n) {
    (pack[g + 2] as number)++;
  } else {
    runPack = pack;
    runGroup = pack.length;
    pack.push(fn, n, 1);
  }
  pack.push(id);
  for (let i = 0; i < n; i++) pack.push(args[i]);
  return true;
}

/**
 * Queues "run task `id`": in the batch's run pack when it can go there, else as a `RunRecord`
 * whose trailing undefined fields are left out (a shorter tuple to allocate and to clone).
 */
export function pushRun<M>(
  out: Batcher<M>,
  id: number,
  fn: FnRef | number,
  args: unknown[],
  refs: ArgRefs | undefined,
  options: RunOptions | undefined,
  inherited: PlainOptions | undefined,
  transfer: TransferListItem[] | undefined,
): void {
  if (inherited !== undefined)
    out.push([RUN, id, fn, args, refs, options, inherited] as M, transfer);
  else if (options !== undefined) out.push([RUN, id, fn, args, refs, options] as M, transfer);
  else if (refs !== undefined) out.push([RUN, id, fn, args, refs] as M, transfer);
  else if (transfer !== undefined || !appendRun(out, id, fn, args))
    out.push([RUN, id, fn, args] as M, transfer);
}

/** Calls `run(id, fn, args)` for each task of `pack`, in order. */
export function forEachRun(
  pack: RunPack,
  run: (id: number, fn: FnRef | number, args: unknown[]) => void,
): void {
  for (let i = 1; i < pack.length; ) {
    const fn = pack[i] as FnRef | number;
    const n = pack[i + 1] as number;
    const count = pack[i + 2] as number;
    i += 3;
    for (let k = 0; k < count; k++) {
      const id = pack[i] as number;
      const args = new Array<unknown>(n);
      for (let j = 0; j < n; j++) args[j] = pack[i + 1 + j];
      i += 1 + n;
      run(id, fn, args);
    }
  }
}

/**
 * Queues "task `id` finished" in the done pack at the end of `out`'s next batch. Returns
 * false, queueing nothing, when `value` is not a plain primitive (it goes as a `DoneRecord`).
 */
export function appendDone<M>(
  out: Batcher<M>,
  id: number,
  bytes: number,
  ms: number,
  inline: 0 | 1,
  value: unknown,
): boolean {
  if (inline === 1) {
    if (!isPlainPrimitive(value)) return false;
    addDone(out, id, ms, value);
  } else addDone(out, -id - 1, ms, bytes); // ids may pass 2 ** 32: no `~`
  return true;
}

/**
 * Adds a completion's three values to the done pack that ends `out`'s next batch, or queues a
 * new pack holding them: made as a literal of its size, since a batch often reports one
 * completion (a task of a millisecond or more is reported the moment it ends), where a pack
 * opened empty and pushed onto would reserve room for 16 values.
 */
function addDone<M>(out: Batcher<M>, a: number, b: number, c: unknown): void {
  const last = out.last();
  if (Array.isArray(last) && last[0] === DONES) last.push(a, b, c);
  else out.push([DONES, a, b, c] as M);
}

/**
 * Queues "task `id` finished": in the batch's done pack when it can go there, else as a
 * `DoneRecord` (with `back`, the final values of its `returnArgs`, if any).
 */
export function pushDone<M>(
  out: Batcher<M>,
  id: number,
  bytes: number,
  ms: number,
  inline: 0 | 1,
  value: unknown,
  back: unknown[] | undefined,
): void {
  if (back !== undefined) out.push([DONE, id, bytes, ms, inline, value, back] as M);
  else if (!appendDone(out, id, bytes, ms, inline, value))
    out.push([DONE, id, bytes, ms, inline, value] as M);
}

/**
 * Calls `done(id, bytes, ms, inline, value)` for each completion in `pack`, in order (`bytes`
 * 0 for an inline result, whose size the scheduler does not use).
 */
export function forEachDone(
  pack: DonePack,
  done: (id: number, bytes: number, ms: number, inline: 0 | 1, value: unknown) => void,
): void {
  for (let i = 1; i < pack.length; i += 3) {
    const id = pack[i] as number;
    if (id >= 0) done(id, 0, pack[i + 1] as number, 1, pack[i + 2]);
    else done(-id - 1, pack[i + 2] as number, pack[i + 1] as number, 0, undefined);
  }
}

/** The pack tagged `tag` that ends `out`'s next batch, queued now if the batch ends otherwise. */
function openPack<M>(out: Batcher<M>, tag: number): unknown[] {
  const last = out.last();
  if (Array.isArray(last) && last[0] === tag) return last;
  const pack: unknown[] = [tag];
  out.push(pack as M);
  return pack;
}
