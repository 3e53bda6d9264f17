import { InputLostError } from '../errors/errors.js';
import { Batcher } from '../protocol/batcher.js';
import type { PeerMessage } from '../protocol/protocol.js';
import { Requests } from '../protocol/requests.js';
import type { Transport } from '../protocol/transport.js';
import { linkPeerStreams, peerStreamMessage } from '../stream/peer-edges.js';
import type { ResultServer } from './result-server.js';
import { unsendableStreamValues, unsendableValue } from './unsendable-result.js';
import type { WorkerTask } from './worker-task.js';

/** What `PeerLinks` calls back in its runtime (closures made once, with the runtime). */
export interface PeerLinksRuntime {
  /** A batch from a peer arrived: a new turn of the runtime's task loop. */
  heard(): void;
  /** `task` has all its inputs now: run it. */
  ready(task: WorkerTask): void;
  /** `task` cannot have an input: fail it. */
  failed(task: WorkerTask, error: unknown): void;
}

/** One link to a peer runtime: messages to it, and what was asked of it. */
interface PeerLink {
  out: Batcher<PeerMessage>;
  requests: Requests;
}

/**
 * A worker runtime's direct links to its peer runtimes, by holder id, so that results move
 * between them without passing through the scheduler: serves the peers' fetches (through the
 * runtime's `ResultServer`) and asks them for the inputs they hold. What was asked over a link
 * that closes or is replaced fails with `InputLostError` (the scheduler then recomputes it).
 */
export class PeerLinks {
  private readonly links = new Map<string, PeerLink>();

  constructor(
    /** Answers the peers' fetches from the runtime's store. */
    private readonly server: ResultServer,
    /** What the runtime does as peers' messages and answers arrive. */
    private readonly runtime: PeerLinksRuntime,
  ) {}

  /** Connects to the runtime `holder` over `transport`, replacing an older link to that name. */
  connect(holder: string, transport: Transport): void {
    const out = new Batcher<PeerMessage>(transport);
    out.onUnsendable = (m, error) =>
      m.op === 'value'
        ? unsendableValue(m, error)
        : m.op === 'streamValues'
          ? unsendableStreamValues(m, error)
          : undefined;
    const requests = new Requests();
    const replaced = this.links.get(holder);
    this.links.set(holder, { out, requests });
    // A link is replaced when its thread died and a new one took its name. The old link may
    // never close (a port sent to a thread killed before it read it), so what was asked over
    // it is given up now: those tasks run again and ask the replacement.
    replaced?.requests.rejectAll(new InputLostError(`Peer ${holder} was replaced`));
    // Streaming edges between tasks here and there use the link too (`peer-edges.ts`).
    const streamsClosed = linkPeerStreams(holder, (m) => out.push(m));
    transport.onMessage((batch) => {
      this.runtime.heard();
      for (const m of batch as PeerMessage[]) {
        if (m.op === 'peerFetch') this.server.toPeer(out, m.req, m.key);
        else if (m.op === 'value') requests.resolveFetched(m.req, m.value);
        else if (m.op === 'error') requests.reject(m.req, m.error);
        else peerStreamMessage(holder, m);
      }
    });
    transport.onClose(() => {
      streamsClosed();
      // What was asked over this connection will not be answered, even when a newer connection
      // to a replacement of that peer has arrived meanwhile (regression: a fetch sent just
      // before the replacement's link hung its task forever). The task then runs again and
      // asks the replacement, or its input is recomputed.
      requests.rejectAll(new InputLostError(`Peer ${holder} closed; what it held is gone`));
      if (this.links.get(holder)?.out === out) this.links.delete(holder);
    });
  }

  /**
   * Asks the peer `holder` for its result `key`, which a task takes as input `index`. Rejects
   * with `InputLostError` when there is no link to it, or the link closes before the answer.
   */
  fetch(holder: string, key: number, index: number): Promise<unknown> {
    const peer = this.links.get(holder);
    return peer
      ? peer.requests.ask((req) => peer.out.push({ op: 'peerFetch', req, key }))
      : Promise.reject(new InputLostError(`No connection to ${holder}, which held input ${index}`));
  }

  /**
   * Fetches input `index` of `task`, result `key` of the peer `holder`, into its arguments; the
   * task runs once it has all its inputs. An input lost with its holder (`InputLostError`)
   * makes the scheduler recompute it; any other error (a value that cannot be cloned) fails
   * the task.
   */
  fetchInput(task: WorkerTask, index: number, key: number, holder: string): void {
    task.pendingFetches++;
    this.fetch(holder, key, index).then(
      (value) => {
        task.args[index] = value;
        if (--task.pendingFetches === 0 && task.missing === 0) this.runtime.ready(task);
      },
      (error) => this.runtime.failed(task, error),
    );
  }
}
