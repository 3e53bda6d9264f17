import type { MessagePort, TransferListItem } from 'node:worker_threads';
import type { Transport } from '@dtask/core/worker';

/**
 * A `Transport` over a `MessagePort` (one end of a `MessageChannel`): structured clone,
 * transfer lists, and close detection when the other end (or its thread) goes away.
 */
export function portTransport(port: MessagePort): Transport {
  let closeHandler: ((reason?: unknown) => void) | undefined;
  let closed = false;
  port.on('close', () => {
    if (closed) return;
    closed = true;
    closeHandler?.();
  });
  return {
    send(message: unknown, transfer?: TransferListItem[]) {
      port.postMessage(message, transfer);
    },
    onMessage(handler) {
      port.on('message', handler);
    },
    onClose(handler) {
      closeHandler = handler;
    },
    close() {
      if (closed) return;
      closed = true;
      port.close();
      closeHandler?.();
    },
    ref() {
      port.ref();
    },
    unref() {
      port.unref();
    },
  };
}
