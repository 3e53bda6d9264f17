import type { MemorySpace } from '../processor/memory-space.js';
import { OSProc } from '../processor/os-proc.js';
import { type ArgType, Processor } from '../processor/processor.js';
import type { Plugin } from '../registry/plugin.js';
import { frames } from '../task/frame.js';

/** Decides whether a `FakeProcessor` runs `f` (a function, or a `Chunk` holding one). */
export type FakeCompatibility = (
  f: unknown,
  argTypes: readonly ArgType[],
  options: object,
) => boolean;

/** How a `FakeProcessor` is made; every field is optional. */
export interface FakeProcessorOptions {
  /** The OS process it pretends to belong to, so `scope({ worker })` selects it. Default 1. */
  worker?: number;
  /** Its number within the worker (`fake:<worker>:<index>`). Default: the next free one. */
  index?: number;
  /** Whether default-scoped tasks may run here. Default false (opt-in, like a GPU). */
  defaultEnabled?: boolean;
  /** The functions it runs: a set of functions, or a predicate. Default: none. */
  compatible?: Iterable<Function> | FakeCompatibility;
  /** Milliseconds each task waits before it runs (through `sleep`). Default 0. */
  delayMs?: number;
  /** The timer behind `delayMs`; inject one for deterministic tests. Default: `setTimeout`. */
  sleep?: (ms: number) => Promise<void>;
}

const nextIndex = new Map<number, number>();

const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * A processor that runs tasks in this thread but is not a thread (Dagger's `test/fakeproc.jl`):
 * it exercises the plugin contract (`isCompatible`, `defaultEnabled`, `execute`) without
 * workers. Tests add it with `fakeProcessorPlugin([...])` or `addProcs`; the scheduler runs
 * its tasks through `ProcessorExecutor`, one at a time unless their occupancy is lower.
 * It records what ran (`executions`, `ran`) and how many overlapped (`maxActive`).
 */
export class FakeProcessor extends Processor {
  /** The kind of every `FakeProcessor` (for `ProcessorTypeScope(FakeProcessor)`). */
  static readonly kind = 'fake';
  /** Always `fake`. */
  readonly kind = 'fake';
  /** `fake:<worker>:<index>`. */
  readonly id: string;
  /** The OS process it pretends to belong to. */
  readonly worker: number;
  /** Its number within the worker. */
  readonly index: number;
  /** Functions it was told it can run (see `allow`). */
  readonly compatible = new Set<Function>();
  /** Calls of `execute` so far. */
  executions = 0;
  /** Ids of the tasks it ran, in the order they started. */
  readonly ran: number[] = [];
  /** Tasks running now. */
  active = 0;
  /** The most tasks that ever ran at once. */
  maxActive = 0;
  private readonly enabled: boolean;
  private readonly predicate: FakeCompatibility | undefined;
  private readonly delayMs: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: FakeProcessorOptions = {}) {
    super();
    this.worker = options.worker ?? 1;
    this.index = options.index ?? (nextIndex.get(this.worker) ?? 0) + 1;
    nextIndex.set(this.worker, Math.max(this.index, nextIndex.get(this.worker) ?? 0));
    this.id = `fake:${this.worker}:${this.index}`;
    this.enabled = options.defaultEnabled ?? false;
    const c = options.compatible;
    if (typeof c === 'function') this.predicate = c as FakeCompatibility;
    else if (c !== undefined) for (const f of c) this.compatible.add(f);
    this.delayMs = options.delayMs ?? 0;
    this.sleep = options.sleep ?? realSleep;
  }

  /** Declares `fs` compatible from now on; returns this processor. */
  allow(...fs: Function[]): this {
    for (const f of fs) this.compatible.add(f);
    return this;
  }

  /** The `OSProc` of its worker. */
  override getParent(): Processor | undefined {
    return new OSProc(this.worker);
  }

  /** One memory space of its own, `fake-memory:<worker>:<index>`. */
  override memorySpaces(): MemorySpace[] {
    return [{ id: `fake-memory:${this.worker}:${this.index}`, kind: 'fake', worker: this.worker }];
  }

  /** True for the functions it was told about (`compatible`, `allow`, or the predicate). */
  override isCompatible(options: object, f: unknown, argTypes: readonly ArgType[]): boolean {
    if (typeof f === 'function' && this.compatible.has(f)) return true;
    return this.predicate?.(f, argTypes, options) ?? false;
  }

  /** As configured (default false). */
  override get defaultEnabled(): boolean {
    return this.enabled;
  }

  /** Really runs `f(...args)` here, after the configured delay, and records the run. */
  override async execute(f: (...args: any[]) => unknown, args: unknown[]): Promise<unknown> {
    this.executions++;
    const task = frames.getStore()?.frameTask;
    if (task) this.ran.push(task.id);
    this.active++;
    this.maxActive = Math.max(this.maxActive, this.active);
    try {
      if (this.delayMs > 0) await this.sleep(this.delayMs);
      return await f(...args);
    } finally {
      this.active--;
    }
  }
}

/**
 * A plugin that adds `procs` to a context in `setup`, each run by a `ProcessorExecutor`:
 * `new Context({ plugins: [fakeProcessorPlugin([new FakeProcessor({ worker: 2 })])] })`.
 * `name` must be unique within the context (default `fake-processors`).
 */
export function fakeProcessorPlugin(procs: readonly Processor[], name = 'fake-processors'): Plugin {
  return {
    name,
    setup(host) {
      for (const proc of procs) host.addProcessor(proc);
    },
  };
}
