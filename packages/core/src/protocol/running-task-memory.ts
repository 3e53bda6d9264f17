/**
 * Memory a worker thread's runtime shares with its connection on the scheduler's thread, so
 * that if the thread dies the scheduler still knows what it was doing:
 * - slot 0: the id of the task running synchronously now (0 when none): a crash's culprit;
 * - slot 1: how many in-place tasks began since the runtime last sent a batch (-1: too many
 *   to list), and slots 2 on: their ids. A task that writes shared memory in place says so
 *   when it begins ('began'), but that message waits for the batch: a task that crashes the
 *   thread in the same turn would leave the scheduler thinking the others never began.
 */
export type RunningTaskMemory = Float64Array;

const COUNT = 1;
const FIRST = 2;
/** In-place tasks listed per batch before the list just says "all". */
const LISTED = 30;

/** Allocates the memory (shared, so both threads see it). */
export function runningTaskMemory(): RunningTaskMemory {
  return new Float64Array(new SharedArrayBuffer(8 * (FIRST + LISTED)));
}

/** Whether `memory` has room to list in-place tasks (older layouts hold only slot 0). */
export function listsBegan(memory: RunningTaskMemory | undefined): memory is RunningTaskMemory {
  return memory !== undefined && memory.length > FIRST;
}

/** The runtime: in-place task `id` begins before the batch saying so is sent. */
export function noteBegan(memory: RunningTaskMemory, id: number): void {
  const n = memory[COUNT];
  if (n < 0) return;
  if (n >= LISTED) memory[COUNT] = -1;
  else {
    memory[FIRST + n] = id;
    memory[COUNT] = n + 1;
  }
}

/** The runtime: a batch was sent; the tasks it named as begun are known to the scheduler. */
export function batchSent(memory: RunningTaskMemory): void {
  if (memory[COUNT] !== 0) memory[COUNT] = 0;
}

/**
 * The scheduler, once the thread is gone: whether task `id` began without the scheduler
 * hearing of it (listed, or the list overflowed).
 */
export function beganUnsent(memory: RunningTaskMemory | undefined, id: number): boolean {
  if (!listsBegan(memory)) return false;
  const n = memory[COUNT];
  if (n < 0) return true;
  for (let i = 0; i < n; i++) if (memory[FIRST + i] === id) return true;
  return false;
}
