import type { Processor } from '../../processor/processor.js';
import type { DTask } from '../../task/dtask.js';
import { runWithFrame } from '../../task/frame.js';
import type { Executor, ExecutorSink } from './executor.js';

/**
 * Runs tasks through `Processor.execute(f, args)`: the executor of any processor that a
 * plugin or user defines without a runtime of its own (Dagger's `execute!`). Arguments are
 * moved to the processor with `move()` first. One task at a time per processor by default.
 */
export class ProcessorExecutor implements Executor {
  readonly inline = false;

  constructor(readonly capacity = 1) {}

  run(task: DTask<unknown>, proc: Processor, sink: ExecutorSink): void {
    const started = performance.now();
    const go = (args: unknown[]): void => {
      let result: Promise<unknown>;
      try {
        // Entering the task's frame lets the function see inTask(), getOptions(), ...
        result = runWithFrame(task, () =>
          proc.execute(task.fn as (...a: unknown[]) => unknown, args),
        );
      } catch (error) {
        sink.fail(task, error);
        return;
      }
      Promise.resolve(result).then(
        (value) => sink.complete(task, value, performance.now() - started),
        (error) => sink.fail(task, error),
      );
    };
    let args: unknown[] | Promise<unknown[]>;
    try {
      args = sink.resolveArgs(task, proc);
    } catch (error) {
      sink.fail(task, error);
      return;
    }
    if (Array.isArray(args)) go(args);
    else args.then(go, (error) => sink.fail(task, error));
  }
}
