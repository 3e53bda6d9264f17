import type { Processor } from './processor.js';

const KEY = Symbol.for('dtask.topology');

/**
 * Which processors exist in which OS process, program-wide (like Dagger's processor cache).
 * Contexts and plugins record processors here as they appear; `OSProc.getProcessors` reads it.
 * Lives on `globalThis` so ESM and CJS copies of core share it.
 */
export class Topology {
  private readonly byWorker = new Map<number, Map<string, Processor>>();
  private readonly nodes = new Map<number, string>();

  /** Records `proc` as a child of its worker's OS process (replacing one with the same id). */
  add(proc: Processor): void {
    let procs = this.byWorker.get(proc.worker);
    if (!procs) this.byWorker.set(proc.worker, (procs = new Map()));
    procs.set(proc.id, proc);
  }

  /** Forgets `proc`. */
  remove(proc: Processor): void {
    this.byWorker.get(proc.worker)?.delete(proc.id);
  }

  /** The compute processors of `worker`. */
  children(worker: number): Processor[] {
    return [...(this.byWorker.get(worker)?.values() ?? [])];
  }

  /** Worker ids that have at least one recorded processor, ascending. */
  workers(): number[] {
    return [...this.byWorker.entries()]
      .filter(([, procs]) => procs.size > 0)
      .map(([worker]) => worker)
      .sort((a, b) => a - b);
  }

  /** The processor with this id, if recorded. */
  find(id: string): Processor | undefined {
    for (const procs of this.byWorker.values()) {
      const proc = procs.get(id);
      if (proc) return proc;
    }
    return undefined;
  }

  /** Records the machine (host name or node id) a worker runs on. */
  setNode(worker: number, node: string): void {
    this.nodes.set(worker, node);
  }

  /** The machine of `worker`, if known. */
  nodeOf(worker: number): string | undefined {
    return this.nodes.get(worker);
  }
}

/** The program-wide topology. */
export function topology(): Topology {
  const g = globalThis as unknown as { [KEY]?: Topology };
  g[KEY] ??= new Topology();
  return g[KEY];
}
