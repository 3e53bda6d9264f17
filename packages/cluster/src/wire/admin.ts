import type { PluginSpec } from '@dtask/core';

/** A peer a joining worker links to: the processor id its results are held under, and where. */
export interface PeerInfo {
  holder: string;
  worker: number;
  address: string;
}

/** Administration messages, scheduler → worker. */
export type AdminToWorker =
  /** The answer to a join: who the worker is and what to set up before serving tasks. */
  | {
      op: 'init';
      worker: number;
      specs: PluginSpec[];
      modules: string[];
      peers: PeerInfo[];
    }
  /** Load an `everywhere` module. */
  | { op: 'load'; req: number; url: string }
  /** Leave: the context is closing or the worker is removed. */
  | { op: 'exit' }
  /**
   * To a heartbeat thread once it joined: the scheduler probes every `intervalMs`; with no
   * frame from it for `timeoutMs`, the worker ends itself (its scheduler is gone or cut off).
   */
  | { op: 'watch'; intervalMs: number; timeoutMs: number };

/** Administration messages, worker → scheduler. */
export type AdminFromWorker =
  /** Set up and linked to `peers` (the processor ids of the threads it linked to): it serves tasks now. */
  | { op: 'ready'; peers: string[] }
  | { op: 'loaded'; req: number }
  | { op: 'loadFailed'; req: number; error: string };
