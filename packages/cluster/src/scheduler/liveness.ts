import { Worker } from 'node:worker_threads';
import { distFile } from '../dist-file.js';
import type { LivenessAddress, LivenessData } from './liveness-thread.js';

/** The scheduler process's liveness thread, seen from the main thread. */
export interface Liveness {
  /** Where it listens; undefined when it could not start (workers then watch the main link). */
  readonly address: Promise<LivenessAddress | undefined>;
  /** Ends the thread. */
  close(): void;
}

/**
 * Starts the liveness thread (built next to this module as `liveness-thread.js`), which probes
 * workers' heartbeat threads from a thread of its own, so that the user's code keeping the main
 * thread busy is not taken by workers for a scheduler gone. It never keeps node alive.
 */
export function startLiveness(data: LivenessData): Liveness {
  const thread = new Worker(distFile('liveness-thread.js'), {
    workerData: data,
    name: 'dtask liveness',
  });
  thread.unref();
  const address = new Promise<LivenessAddress | undefined>((resolve) => {
    const fail = (why: unknown) => {
      process.emitWarning(
        `dtask: the scheduler's liveness thread did not start (${why}); workers judge its liveness by the main thread alone, and may end themselves while it is busy`,
      );
      resolve(undefined);
    };
    thread.once('message', (m: LivenessAddress | { error: string }) =>
      'error' in m ? fail(m.error) : resolve(m),
    );
    thread.once('error', fail);
  });
  return { address, close: () => void thread.terminate() };
}
