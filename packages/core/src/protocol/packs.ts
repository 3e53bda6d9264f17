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
  type RunPack,
} from './protocol.js';

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
  pack.push(id, fn, n);
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
  options: PlainOptions | undefined,
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
    const id = pack[i] as number;
    const fn = pack[i + 1] as FnRef | number;
    const n = pack[i + 2] as number;
    const args = new Array<unknown>(n);
    for (let j = 0; j < n; j++) args[j] = pack[i + 3 + j];
    i += 3 + n;
    run(id, fn, args);
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
  if (!isPlainPrimitive(value)) return false;
  openPack(out, DONES).push(id, bytes, ms, inline, value);
  return true;
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

/** Calls `done(id, bytes, ms, inline, value)` for each completion in `pack`, in order. */
export function forEachDone(
  pack: DonePack,
  done: (id: number, bytes: number, ms: number, inline: 0 | 1, value: unknown) => void,
): void {
  for (let i = 1; i < pack.length; i += 5) {
    done(
      pack[i] as number,
      pack[i + 1] as number,
      pack[i + 2] as number,
      pack[i + 3] as 0 | 1,
      pack[i + 4],
    );
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
