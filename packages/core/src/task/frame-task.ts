import type { Processor } from '../processor/processor.js';

/** The part of a running task that task-local functions expose. */
export interface FrameTask {
  readonly id: number;
  readonly name: string | undefined;
  /** Where it runs. */
  readonly processor: Processor | undefined;
  /** Aborted when the task is cancelled; created on first use. */
  readonly abortSignal: AbortSignal;
  /** User task-local values (`getTls`/`setTls`). */
  tlsValues: Record<string, unknown> | undefined;
  /** The scheduler handle for dynamic control (`schHandle`). */
  readonly handleOwner: unknown;
}
