import { InputLostError, WorkerLostError } from '../../../errors/errors.js';
import type { ArgRefs } from '../../../protocol/protocol.js';
import type { DTask } from '../../../task/dtask.js';
import { TaskState } from '../../../task/task-state.js';
import type { ExecutorSink } from '../../dispatch/executor.js';
import { type ArgTarget, inputsBeingMade, planArgs } from './outgoing-args.js';

/** The connection `PlannedSends` sends tasks through, as it sees it. */
export interface PlannedSendTarget extends ArgTarget {
  /** True once the connection closed or broke. */
  readonly isClosed: boolean;
  /** The holder id of the runtime there, named in errors. */
  readonly holder: string;
}

/**
 * Sends a `WorkerConnection`'s tasks that take tasks or chunks as arguments: plans how each of
 * those travels (`planArgs`) and, when some must first be brought to this thread, sends the
 * task once they have come. A task withdrawn, cancelled or placed again meanwhile is not sent
 * (`forget`); one whose worker died meanwhile goes back to be placed elsewhere.
 */
export class PlannedSends {
  /** Tasks that wait for inputs before being sent, with their current attempt. */
  private readonly planning = new Map<DTask<unknown>, object>();

  constructor(
    /** The connection the tasks go to. */
    private readonly target: PlannedSendTarget,
    /** Sends `task` with `args` (and `refs`) to the runtime, once planned. */
    private readonly send: (
      task: DTask<unknown>,
      args: unknown[],
      refs: ArgRefs | undefined,
    ) => void,
  ) {}

  /**
   * Plans the arguments at `indices` (all when undefined; see `planArgs`) and sends the task
   * once those being brought here have come. References are planned again after such a wait:
   * meanwhile a result may have started moving here, or have been dropped by its holder. And
   * after a wait (`again`), an input still being made on the worker could finish, and let go
   * of a small result, before this task's message arrives there: the task then waits for it
   * here first. (Regression: tasks sent ahead waited forever for such inputs, when another
   * input was on its way here, or on a storage device of this thread.)
   */
  plan(
    task: DTask<unknown>,
    args: unknown[],
    indices: readonly number[] | undefined,
    sink: ExecutorSink,
    again = false,
  ): void {
    const plan = planArgs(task, this.target, args, indices);
    if (plan.lost >= 0) {
      // Its holder died after this task was placed: recompute the input, then run again.
      const i = plan.lost;
      sink.lost(
        [task],
        new InputLostError(`Input ${i} of task #${task.id} was lost with its worker`),
        true,
      );
      return;
    }
    const made = again && plan.waits === undefined ? inputsBeingMade(task, plan.refs) : undefined;
    const waits = plan.waits ?? (made?.length ? made.map(settled) : undefined);
    if (waits === undefined) {
      this.send(task, args, plan.refs);
      return;
    }
    const attempt = {};
    this.planning.set(task, attempt);
    const refs = plan.refs?.map(([i]) => i) ?? [];
    const current = () => this.planning.get(task) === attempt && this.planning.delete(task);
    Promise.all(waits).then(
      () => {
        // Withdrawn, cancelled or placed again meanwhile; or failed.
        if (!current() || task.state !== TaskState.Running) return;
        if (this.target.isClosed) {
          // The worker died while the inputs came: place the task again elsewhere.
          sink.lost([task], new WorkerLostError(`Worker ${this.target.holder} is gone`), true);
          return;
        }
        this.plan(task, args, refs, sink, true);
      },
      (error) => {
        if (!current()) return;
        // An input's holder died while the input came here: recompute it, then run again.
        if (InputLostError.isInstance(error)) sink.lost([task], error, true);
        else sink.fail(task, error);
      },
    );
  }

  /** `task` was withdrawn or cancelled: if it waits for inputs, it is not sent when they come. */
  forget(task: DTask<unknown>): void {
    this.planning.delete(task);
  }
}

/** Resolves once `task` has finished, either way. */
function settled(task: DTask<unknown>): Promise<void> {
  return new Promise((resolve) => task.onSettled(resolve));
}
