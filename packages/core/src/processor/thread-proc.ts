import { HeapMemorySpace, type MemorySpace, SharedMemorySpace } from './memory-space.js';
import { OSProc } from './os-proc.js';
import { Processor } from './processor.js';

/**
 * One JS thread of one OS process (Dagger's `ThreadProc`). Thread 1 of worker 1 is the main
 * thread; `@dtask/threads` adds threads 2 … n+1. Enabled by default and compatible with any
 * JS function; whether a function can *travel* to it is decided at `spawn`.
 */
export class ThreadProc extends Processor {
  /** The kind of every `ThreadProc` (for `ProcessorTypeScope(ThreadProc)`). */
  static readonly kind = 'thread';
  readonly id: string;
  readonly kind = 'thread';

  constructor(
    readonly worker: number,
    readonly thread: number,
  ) {
    super();
    this.id = `thread:${worker}:${thread}`;
  }

  override getParent(): Processor {
    return new OSProc(this.worker);
  }

  override memorySpaces(): MemorySpace[] {
    return [new HeapMemorySpace(this.worker, this.thread), new SharedMemorySpace(this.worker)];
  }

  override isCompatible(): boolean {
    return true;
  }

  override get defaultEnabled(): boolean {
    return true;
  }

  /** Runs `f` here when this is the calling thread; other threads run through their runtime. */
  override async execute(f: (...args: any[]) => unknown, args: unknown[]): Promise<unknown> {
    return f(...args);
  }
}

/** The main thread of the main process: `ThreadProc(1, 1)`. */
export const MAIN_THREAD_ID = 'thread:1:1';
