import { MessageChannel } from 'node:worker_threads';
import { describe, it } from 'vitest';
import { transportConformance } from '../testing/transport-conformance.js';
import { portTransport } from './port-transport.js';

// Both ends in this thread: a MessagePort behaves the same whichever thread holds the other end.
transportConformance(
  'portTransport',
  () => {
    const { port1, port2 } = new MessageChannel();
    return {
      ends: [portTransport(port1), portTransport(port2)],
      dispose: () => {
        port1.close();
        port2.close();
      },
    };
  },
  { describe, it },
);
