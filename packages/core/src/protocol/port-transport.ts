import { type MessagePort, receiveMessageOnPort, type TransferListItem } from 'node:worker_threads';
import type { Transport } from './transport.js';

/**
 * A `Transport` over a `MessagePort` (one end of a `MessageChannel`): structured clone,
 * transfer lists, and close detection when the other end (or its thread) goes away.
 */
export function portTransport(port: MessagePort): Transport {
  let closeHandler: ((reason?: unknown) => void) | undefined;
  let messageHandler: ((message: unknown) => void) | undefined;
  let closed = false;
  port.on('close', () => {
    if (closed) return;
    closed = true;
    closeHandler?.();
  });
  return {
    sharesMemory: true,
    send(message: unknown, transfer?: TransferListItem[]) {
      port.postMessage(message, transfer);
    },
    onMessage(handler) {
      messageHandler = handler;
      port.on('message', handler);
    },
    poll() {
      // A message taken with receiveMessageOnPort is not emitted as a 'message' event too.
      if (closed || messageHandler === undefined) return false;
      let any = false;
      let next: { message: unknown } | undefined;
      while ((next = receiveMessageOnPort(port)) !== undefined) {
        any = true;
        messageHandler(next.message);
      }
      return any;
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
