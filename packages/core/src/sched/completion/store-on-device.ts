import { sizeOf } from '../../chunk/size-of.js';
import type { StorageDevice } from '../../chunk/storage-device.js';
import { ArgumentError } from '../../errors/errors.js';
import type { DTask } from '../../task/dtask.js';
import { RemoteResult } from '../../task/remote-result.js';
import type { SchedulerState } from '../scheduler-state.js';
import { failTask } from './fail-task.js';

/** Device entries of results whose tasks are gone: deleted once their task is collected. */
const freed = new FinalizationRegistry<{ device: StorageDevice; key: string }>(
  ({ device, key }) => {
    try {
      void Promise.resolve(device.delete(key)).catch(() => {});
    } catch {
      // A device closed meanwhile has nothing left to free.
    }
  },
);

let nextKey = 0;

/** What `keepOnDevice` returns when it failed the task instead. */
export const DEVICE_FAILED: unique symbol = Symbol('dtask.deviceFailed');

/**
 * The `device` option at completion: a result made on the scheduler's own thread goes to the
 * device (`storeOnDevice`); one that rode back inline from a worker (small) stays as it is, as
 * big worker results stay in that worker's store. A device the context lacks fails the task
 * (then it returns `DEVICE_FAILED`).
 */
export function keepOnDevice(s: SchedulerState, task: DTask<unknown>, value: unknown): unknown {
  const local = task.proc !== undefined && s.slotById.get(task.proc.id)?.executor.inline;
  if (!local) return value;
  try {
    return storeOnDevice(task, value, s.storageDevice);
  } catch (error) {
    failTask(s, task, error);
    return DEVICE_FAILED;
  }
}

/**
 * The task option `device` for a result made on the scheduler's own thread: puts `value` on
 * the storage device the option names (e.g. `'lmdb'`, which counts it against the process's
 * memory limit and may spill it) and returns the handle the task keeps instead of the value.
 * Reads go to the device; the entry is deleted once the task object is collected. A put the
 * device refuses (full) keeps the value in memory, so nothing is lost, and warns. Results made
 * by worker threads stay in that thread's store (which a storage plugin may replace).
 * @throws ArgumentError when no device of that name exists in the context.
 */
export function storeOnDevice(
  task: DTask<unknown>,
  value: unknown,
  lookup: (name: string) => StorageDevice | undefined,
): RemoteResult {
  const option = task.options.device!;
  const device = typeof option === 'string' ? lookup(option) : (option as StorageDevice);
  if (device === undefined) {
    throw new ArgumentError(
      `Task #${task.id}: no storage device named '${String(option)}' in this context; add the ` +
        `plugin that provides it (e.g. lmdb()) or leave the device option out`,
    );
  }
  const key = `task:${process.pid}:${task.id}:${nextKey++}`;
  const bytes = sizeOf(value);
  // Held here until the device has it; kept if the device refuses it.
  const held: { value: unknown; onDevice: boolean } = { value, onDevice: false };
  const stored = (async () => device.put(key, value, { size: bytes }))().then(
    () => {
      held.value = undefined;
      held.onDevice = true;
    },
    (error) => {
      process.emitWarning(
        `dtask: the result of task #${task.id} stays in memory: storage device '${device.name}' refused it (${String((error as Error)?.message ?? error)})`,
        { code: (error as { code?: string })?.code ?? 'DTASK_STORAGE_IO' },
      );
    },
  );
  freed.register(task, { device, key });
  const read = async () => {
    await stored;
    return held.onDevice ? device.get(key) : held.value;
  };
  return new RemoteResult(task.proc!, read, bytes);
}
