import type { Transport } from '@dtask/core/worker';
import type { Link } from './link.js';

/**
 * Core's `Transport` over an authenticated `Link`: each batch is one frame, serialized with
 * Node's `v8` serializer (structured-clone semantics, as between threads; typed arrays and
 * Buffers travel as raw bytes, large ones out of band). Buffers in `transfer` are detached
 * once written, so the sender gives them up as it would to a thread. `prepare` may replace
 * what cannot travel in a batch (a worker's synchronous-answer buffers, `sync-answers.ts`).
 */
export function linkTransport(link: Link, prepare?: (batch: unknown) => unknown): Transport {
  return {
    send(batch, transfer) {
      const message = prepare === undefined ? batch : prepare(batch);
      // Large arrays are written from their own memory, so what `transfer` gives up is
      // detached once the socket has taken it (at once when the frame was copied).
      link.sendMessage(message, () => {
        for (const item of transfer ?? []) {
          if (item instanceof ArrayBuffer && item.byteLength > 0)
            structuredClone(item, { transfer: [item] });
        }
      });
    },
    onMessage(handler) {
      link.onMessage(handler);
    },
    onClose(handler) {
      link.onClose(handler);
    },
    close() {
      link.close();
    },
    ref() {
      link.socket.ref();
    },
    unref() {
      link.socket.unref();
    },
  };
}
