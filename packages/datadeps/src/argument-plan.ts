import { ArgumentError, isChunk, isDTask } from '@dtask/core';
import { footprintsOf, kindOf } from './aliasing.js';
import { isDep, isDepsArg } from './annotations.js';
import { isChunkView } from './chunk-view.js';
import type { Footprint } from './footprint.js';
import type { AliasModifier } from './modifiers.js';
import { canMoveInPlace, type MoveModifier } from './move-in-place.js';
import { isStridedView } from './strided-view.js';

/** One access of an argument: the memory it covers and whether the task may write it. */
export interface Access {
  readonly footprints: Footprint[];
  readonly writes: boolean;
  readonly modifier: AliasModifier | string | undefined;
}

/** What a region task does with one argument, worked out from its annotation. */
export interface ArgumentPlan {
  /** What the task receives (the annotation removed). */
  readonly value: unknown;
  readonly accesses: Access[];
  /** Parts written, for the write-back (empty when nothing is written). */
  readonly written: readonly MoveModifier[];
  /** Written data lives in a `SharedArrayBuffer`: writes land in place wherever the task runs. */
  readonly shared: boolean;
  /**
   * The data (read or written) lives in a `SharedArrayBuffer`: only this process's threads
   * share it, so the task must run in this process (a worker process would get no view of it).
   */
  readonly inSharedMemory: boolean;
}

/** The written parts of an argument read only (shared by every such plan; never changed). */
const NOTHING_WRITTEN: readonly MoveModifier[] = Object.freeze([]);
/** The written parts of an argument written whole (shared by every such plan; never changed). */
const WHOLE_WRITTEN: readonly MoveModifier[] = Object.freeze([undefined]);

/**
 * Reads the annotation of argument `index` (`In`/`Out`/`InOut`/`Deps`, unmarked = `In`) and
 * works out its accesses. Throws `ArgumentError`, saying what to do, for what a task cannot
 * write: primitives, and objects whose written copy dtask could not put back (class instances
 * without a `registerMoveInPlace` rule: structured cloning drops their prototype).
 */
export function planArgument(arg: unknown, index: number): ArgumentPlan {
  let value = arg;
  let mode: 'in' | 'out' | 'inout' = 'in';
  if (isDep(arg)) {
    mode = arg.mode;
    value = arg.value;
    if (isDepsArg(value) || isDep(value)) {
      throw new ArgumentError(
        `Argument ${index}: In/Out/InOut wrap the data itself, not another annotation; ` +
          'write Deps(x, InOut(modifier)) alone',
      );
    }
  }
  if (!isDepsArg(value)) {
    // One access of the whole value, the common case: the written list is a shared constant.
    const writes = mode !== 'in';
    const accesses: Access[] = [{ footprints: footprintsOf(value), writes, modifier: undefined }];
    if (writes) checkWritable(value, index, WHOLE_WRITTEN);
    const inSharedMemory = isShared(value);
    return {
      value,
      accesses,
      written: writes ? WHOLE_WRITTEN : NOTHING_WRITTEN,
      shared: writes && inSharedMemory,
      inSharedMemory,
    };
  }
  const deps = value;
  value = deps.value;
  const accesses: Access[] = [];
  for (const part of deps.parts) {
    accesses.push({
      footprints: footprintsOf(value, part.value),
      writes: part.writes,
      modifier: part.value,
    });
  }
  const written: MoveModifier[] = [];
  for (const a of accesses) if (a.writes) written.push(a.modifier);
  if (written.length > 0) checkWritable(value, index, written);
  const inSharedMemory = isShared(value);
  return { value, accesses, written, shared: written.length > 0 && inSharedMemory, inSharedMemory };
}

function checkWritable(value: unknown, index: number, written: readonly MoveModifier[]): void {
  if (typeof value !== 'object' || value === null) {
    throw new ArgumentError(
      `Argument ${index} is marked Out/InOut but is a ${kindOf(value)}, which cannot be written in ` +
        'place; pass an object, a typed array or a view, or return the new value instead',
    );
  }
  if (isChunk(value) || isDTask(value) || isChunkView(value)) return;
  if (written.every((m) => typeof m === 'string')) return; // fields: assigned one by one
  if (!canMoveInPlace(value)) {
    const kind = kindOf(value);
    throw new ArgumentError(
      `Argument ${index} is marked Out/InOut but is a ${kind}, whose layout datadeps does not know: ` +
        `a worker thread would write a copy that cannot be put back. Call registerMoveInPlace(${kind}, rule), ` +
        `pass the typed arrays or strided views it holds instead, or mark fields with Deps(x, InOut('field'))`,
    );
  }
}

/** True when writes to `value` land in shared memory (nothing to copy back). */
function isShared(value: unknown): boolean {
  if (value instanceof SharedArrayBuffer) return true;
  if (ArrayBuffer.isView(value)) return value.buffer instanceof SharedArrayBuffer;
  if (isStridedView(value)) {
    return ArrayBuffer.isView(value.data) && value.data.buffer instanceof SharedArrayBuffer;
  }
  return false;
}
