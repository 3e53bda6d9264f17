import { ConcurrencyViolationError } from '../errors/errors.js';
import { DTask, taskExtra } from '../task/dtask.js';
import type { SubmitTask, TaskQueue } from '../task/task-queue.js';
import { TaskFlags, TaskState } from '../task/task-state.js';
import { lazyWaitGuard } from '../task/wait-guards.js';
import { EdgeBuffer } from './edge-buffer.js';
import type { StreamDescriptor } from './stream-descriptor.js';
import { streamDriver } from './stream-driver.js';
import { StreamGraph } from './stream-graph.js';
import { DEFAULT_STREAM_BUFFER, remoteNodes, StreamNode, streamNodeOf } from './stream-node.js';

/**
 * The task queue of one `spawnStreaming` region: it holds every task spawned directly inside
 * the region's function, making each a streaming node, and starts none until `start`, when the
 * edges between them (and to streaming tasks of earlier regions) exist.
 */
export class StreamRegion implements TaskQueue {
  private readonly held: [StreamNode, SubmitTask][] = [];
  private readonly graph = new StreamGraph();

  /**
   * `asyncFunction`: the region's function is async, so it may wait on its own tasks before it
   * returns, which could never end; those waits are refused (`refuseBeforeStart`). A plain
   * function returns before any wait of its own can block, and its region starts then.
   */
  constructor(
    private readonly teardown: boolean,
    asyncFunction: boolean,
  ) {
    if (asyncFunction) {
      installGuard();
      unstarted.add(this);
    }
  }

  /** Whether `task` is one of the tasks this region holds until it starts. */
  holds(task: DTask<unknown>): boolean {
    for (const [node] of this.held) if (node.task === task) return true;
    return false;
  }

  enqueue(task: DTask<unknown>, submit: SubmitTask): void {
    const o = task.options;
    const node = new StreamNode(
      task,
      this.graph,
      task.fn as Function,
      o.streamBufferSize ?? DEFAULT_STREAM_BUFFER,
      o.streamMaxEvals,
      this.teardown,
    );
    this.held.push([node, submit]);
  }

  /** Links the region's tasks along their streaming arguments and submits them all. */
  start(): void {
    unstarted.delete(this);
    const held = this.held.splice(0);
    for (const [node] of held) {
      const args = node.task.args;
      for (let pos = 0; pos < args.length; pos++) {
        const from = args[pos] instanceof DTask ? streamNodeOf(args[pos]) : undefined;
        if (from === undefined) continue;
        this.graph.absorb(from.graph);
        const edge = from.connect();
        edge.consumer = node.task.id;
        node.inputs.push({ pos, edge, from });
        args[pos] = undefined;
      }
    }
    for (const [node] of held) {
      if (node.outputs.length === 0) node.held = new EdgeBuffer(node.bufferSize);
    }
    for (const [node, submit] of held) {
      const task = node.task;
      const driver = streamDriver(node);
      task.fn = driver.fn;
      const desc: StreamDescriptor = {
        dtaskStream: true,
        node: task.id,
        inputs: node.inputs.map((i) => i.pos),
        from: node.inputs.map((i) => i.from.task.id),
        maxEvals: node.maxEvals,
        batch: node.bufferSize,
      };
      task.args = [desc, ...task.args];
      task.flags |= TaskFlags.Streaming;
      if (driver.travels) remoteNodes.set(task.id, node);
      else task.flags |= TaskFlags.LocalOnly;
      // It holds no processor while it waits for values, and is never re-run after a worker loss.
      task.options = { ...task.options, occupancy: 0 };
      taskExtra(task).notRerun = STREAM_NOT_RERUN;
      submit(task);
      task.wait().then(() => {
        if (task.state === TaskState.Failed) {
          task.fetch().then(undefined, (error: unknown) => node.graph.fail(causeOf(error)));
        }
      });
    }
  }

  /** The region's function threw: its tasks never start; each fails with `reason`. */
  abandon(reason: unknown): void {
    unstarted.delete(this);
    for (const [node, submit] of this.held.splice(0)) {
      node.finished = true;
      submit(node.task);
      node.task.cancel(reason);
    }
  }
}

/** Regions whose async function has not settled yet (usually none, at most a few). */
const unstarted = new Set<StreamRegion>();

/**
 * Throws `ConcurrencyViolationError` when `task` belongs to a region whose async function has
 * not settled: a wait on it, or a read of its values, could never end if the function itself
 * waits for it (it awaits or reads the task, or returns it, so that its promise adopts it), as
 * the region starts only once that function's promise has settled. `how` says what the caller
 * did.
 */
export function refuseBeforeStart(task: DTask<unknown>, how: string): void {
  if (unstarted.size === 0) return;
  for (const region of unstarted) {
    if (!region.holds(task)) continue;
    throw new ConcurrencyViolationError(
      `Task #${task.id} is a streaming task of a spawnStreaming region that has not started, ` +
        `and was ${how}: its tasks start only once the region function has returned (an async ` +
        'function: once its promise has settled), so this could never end. An async region ' +
        'function must not await or read its tasks, nor return one (its promise would wait for ' +
        'it): return them in an array or object (`return [last]`), and wait for them or read ' +
        'them with streamValues after spawnStreaming settles.',
    );
  }
}

/** Installs (once per thread) the wait guard that applies `refuseBeforeStart` to every wait. */
const installGuard = lazyWaitGuard((task) =>
  refuseBeforeStart(task, 'fetched, waited for or awaited'),
);

const STREAM_NOT_RERUN =
  'it is a streaming task: running it again would repeat or lose values its consumers already had. Spawn the streaming DAG again';

/** A failed task's error, or the `CancelledError` under it. */
function causeOf(error: unknown): unknown {
  const cause = (error as { cause?: unknown })?.cause;
  return cause !== undefined && (cause as { code?: unknown }).code === 'DTASK_CANCELLED'
    ? cause
    : error;
}
