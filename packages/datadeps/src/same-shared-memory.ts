import { currentWorker, type Processor, ProcessScope } from '@dtask/core';
import { isStridedView } from './strided-view.js';

/**
 * True when `value`, the written copy of data held by `holder` that came back from a task run
 * on `ran`, is that data itself: it lies in a `SharedArrayBuffer`, and the holder, the task's
 * processor and this thread are threads of one process (structured cloning between them
 * shares such memory). Nothing then needs writing back. Across processes shared memory is
 * copied, and the copy must be.
 */
export function sameSharedMemory(
  value: unknown,
  holder: Processor,
  ran: Processor | undefined,
): boolean {
  const data = isStridedView(value) ? value.data : value;
  if (!ArrayBuffer.isView(data) || !(data.buffer instanceof SharedArrayBuffer)) return false;
  const here = new ProcessScope(currentWorker());
  return ran !== undefined && here.contains(holder) && here.contains(ran);
}
