import { DTaskError, isDTaskErrorWithCode } from './dtask-error.js';
import { showThrown } from './show-thrown.js';

/** What a failed task looks like inside an error: enough to name it in a message. */
export interface TaskRef {
  readonly id: number;
  readonly name?: string | undefined;
}

/** Fields of a `DTaskFailedError`. */
export interface DTaskFailedErrorInit {
  /** The task whose `fetch` rejects. */
  task: TaskRef;
  /** The task that threw first (the same as `task` when it failed itself). */
  rootTask: TaskRef;
  /** For a dependent task: the failed dependency it was waiting on. */
  upstream?: TaskRef | undefined;
  /** The original error: the user's own, or a specific dtask error. */
  cause: unknown;
}

/** `name#id`, or `#id` for an unnamed task: how messages name tasks. */
export function describeTask(task: TaskRef): string {
  return task.name ? `'${task.name}' (#${task.id})` : `#${task.id}`;
}

function causeText(cause: unknown): string {
  if (cause instanceof Error) return `${cause.name}: ${cause.message}`;
  return showThrown(cause);
}

/**
 * What `fetch`/`await` of a failed task rejects with. `cause` is the root error; `rootTask`
 * names the task that threw it; `upstream` is the failed dependency of a dependent task.
 */
export class DTaskFailedError extends DTaskError {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'DTaskFailedError';
  static readonly code = 'DTASK_FAILED';
  readonly task: TaskRef;
  readonly rootTask: TaskRef;
  readonly upstream: TaskRef | undefined;

  constructor(init: DTaskFailedErrorInit) {
    const where =
      init.rootTask.id === init.task.id
        ? `Task ${describeTask(init.task)} failed`
        : `Task ${describeTask(init.task)} failed because upstream task ${describeTask(
            init.upstream ?? init.rootTask,
          )} failed (root: ${describeTask(init.rootTask)})`;
    super(DTaskFailedError.code, `${where}: ${causeText(init.cause)}`, { cause: init.cause });
    this.task = { id: init.task.id, name: init.task.name };
    this.rootTask = { id: init.rootTask.id, name: init.rootTask.name };
    this.upstream = init.upstream && { id: init.upstream.id, name: init.upstream.name };
  }

  /** Cross-copy `instanceof`. */
  static override isInstance(error: unknown): error is DTaskFailedError {
    return isDTaskErrorWithCode(error, DTaskFailedError.code);
  }
}
