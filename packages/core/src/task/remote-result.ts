import { isChunk } from '../chunk/chunk.js';
import type { Processor } from '../processor/processor.js';

/**
 * A result that stays where it was computed: the task's value is this marker, and dependents
 * or `fetch` obtain the data through it (Dagger keeps results on the worker that made them).
 */
export class RemoteResult {
  /**
   * Set while the result migrates to the scheduler's thread (see `take`): every read then waits
   * for that one transfer instead of asking the holder, which is about to drop the data.
   */
  moving: Promise<unknown> | undefined = undefined;

  constructor(
    /** Where the data is. */
    readonly processor: Processor,
    /** Pulls a copy of the value to the caller; the holder keeps its own. */
    private readonly pull: () => Promise<unknown>,
    /** Size in bytes, when known. */
    readonly bytes?: number,
    /** The holder's own key for the data (worker runtimes use it for peer transfers). */
    readonly key?: unknown,
    /** True once the holder is gone: the value must be recomputed from the task's lineage. */
    readonly isLost: () => boolean = neverLost,
    /**
     * Moves the value to the caller for good: the holder drops it and transfers its
     * `ArrayBuffer`s rather than copying them. Holders that cannot leave it out.
     */
    readonly take?: () => Promise<unknown>,
    /**
     * Whether the holder keeps the data under `key` in host memory although its processor has
     * a memory of its own (a device's result spilled by conversion). One function per holder.
     */
    private readonly heldInHost: (key: unknown) => boolean = neverLost,
  ) {}

  /**
   * True once its holder moved it from device to host memory: placement then weighs it as host
   * data (its dependents go to a CPU thread where they may run there).
   */
  get inHost(): boolean {
    return this.heldInHost(this.key);
  }

  /** The value, moved to the caller (a copy unless it is migrating). */
  fetch(): Promise<unknown> {
    return this.moving ?? this.pull();
  }
}

/** The default of `isLost` and `heldInHost`. */
function neverLost(): boolean {
  return false;
}

const REMOTE_RESULT = RemoteResult.prototype;

/**
 * True for a `RemoteResult`. Use it instead of `instanceof RemoteResult` on hot paths: the
 * build keeps class names (`keepNames`) by redefining each class's `name`, which leaves the
 * class object with slow (dictionary) properties, and `instanceof` must then look up its
 * `Symbol.hasInstance` slowly on every check, even for a primitive (~20 ns instead of ~1.5 ns).
 * This compares the prototype instead, and a primitive costs one `typeof`.
 */
export function isRemoteResult(v: unknown): v is RemoteResult {
  return typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === REMOTE_RESULT;
}

/**
 * True when a finished task's `value` is not its result itself but where to get it (a result
 * held on a worker, or a chunk it returned): `owner.fetchValue` brings it; any other value is
 * the result.
 */
export function isHeldElsewhere(value: unknown): boolean {
  return isRemoteResult(value) || isChunk(value);
}
