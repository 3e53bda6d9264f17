import type { Socket } from 'node:net';
import { deserialize, serialize } from 'node:v8';
import { ClusterError } from '../cluster-error.js';
import type { DirectReads } from './direct-reads.js';
import {
  encodeFrame,
  FrameKind,
  type FrameKindValue,
  FrameReader,
  frameHeader,
  LARGE_BODY,
} from './frames.js';
import { decodeMessage, encodeMessage, paddingAfter } from './message-codec.js';

/**
 * Frames allowed before the handshake is done: small (a handshake frame is a few hundred
 * bytes), so a stranger cannot make us buffer much.
 */
export const HANDSHAKE_FRAME_BYTES = 4 * 1024;

/** Idle time after which TCP keepalive probes start on a link's socket (ms). */
export const KEEPALIVE_MS = 10_000;

/** Options of a `Link`. */
export interface LinkOptions {
  /** The largest frame accepted once authenticated (bytes). */
  maxFrameBytes: number;
  /** Told about a broken rule (bad frame, failed handshake) before the link closes. */
  onViolation?: (error: ClusterError) => void;
  /**
   * Carry any value, not only protocol batches and administration messages (whose form is
   * otherwise checked before use, `checkShape`): for tests of the wire itself.
   */
  anyMessage?: boolean;
}

/**
 * One framed, authenticated connection (to the scheduler, a worker or a peer). Until
 * `authenticated()` only handshake frames are read; anything else closes the link. Afterwards it
 * carries core protocol batches (`onMessage`), administration messages (`onAdmin`) and
 * liveness probes, which it answers by itself. A broken rule closes this link only.
 */
export class Link {
  private readonly reader: FrameReader;
  private readonly direct: boolean;
  private authed = false;
  private closed = false;
  private onAuthFrame: (body: unknown) => void = () => {};
  private messageHandler: ((message: unknown) => void) | undefined;
  /** Messages that came before a handler was set (a worker reads them once its runtime runs). */
  private early: unknown[] = [];
  /** Set while `early` waits to be handed to the handler: new batches queue behind it. */
  private replaying = false;
  private adminHandler: ((message: unknown) => void) | undefined;
  /** Administration messages that came before a handler was set. */
  private earlyAdmin: unknown[] = [];
  private readonly closeHandlers: ((reason?: unknown) => void)[] = [];
  private readonly authHandlers: (() => void)[] = [];
  /** When a frame last arrived (`performance.now()`), for heartbeats. */
  lastHeard = performance.now();

  /**
   * @param socket a connected socket (TCP, TLS or Unix)
   * @param direct given when `socket` was made with `direct.onread`: large frames are read in
   *   place (`direct-reads.ts`); else the socket's `data` events are read
   */
  constructor(
    readonly socket: Socket,
    private readonly options: LinkOptions,
    direct?: DirectReads,
  ) {
    socket.setNoDelay(true);
    // A peer that vanished without a word (a machine off, a silent partition) is found by the
    // kernel's keepalive probes even on a link where nothing is being sent.
    socket.setKeepAlive(true, KEEPALIVE_MS);
    const reader = new FrameReader(HANDSHAKE_FRAME_BYTES, (kind, body) => this.frame(kind, body));
    this.reader = reader;
    this.direct = direct !== undefined;
    if (direct !== undefined) {
      direct.attach(
        (scratch) => reader.readTarget(scratch),
        (n, into) => this.read(n, into),
      );
    } else socket.on('data', (data: Buffer) => this.read(data.byteLength, data));
    socket.on('error', () => {}); // reported as 'close'
    socket.on('close', () => this.closeNow());
  }

  /** Whether this side reads large frames in place (it opened the link, without TLS). */
  get readsInPlace(): boolean {
    return this.direct;
  }

  /** True once the handshake succeeded. */
  get isAuthenticated(): boolean {
    return this.authed;
  }

  /** True once closed, by either side. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Where the other end is, for messages. */
  get remote(): string {
    const s = this.socket;
    return s.remoteAddress ? `${s.remoteAddress}:${s.remotePort}` : 'a local socket';
  }

  /** Handshake frames go to `handler` (JSON values). */
  onHandshake(handler: (body: unknown) => void): void {
    this.onAuthFrame = handler;
  }

  /** Sends one handshake frame. */
  sendHandshake(body: unknown): void {
    this.write(FrameKind.auth, Buffer.from(JSON.stringify(body)));
  }

  /** Marks the handshake done: the full frame size limit applies and other frames are read. */
  authenticated(): void {
    this.authed = true;
    this.reader.maxBytes = this.options.maxFrameBytes;
    for (const handler of this.authHandlers.splice(0)) handler();
  }

  /** Called once when the handshake succeeds. */
  onAuthenticated(handler: () => void): void {
    if (this.authed) handler();
    else this.authHandlers.push(handler);
  }

  /**
   * Sends a batch of core protocol messages. Typed arrays and Buffers of 64 KiB or more in it
   * are written from their own memory after the rest (`message-codec.ts`): no copy here.
   * `written` is called once the socket has taken those bytes (or failed to): until then their
   * memory must stay alive, attached and unchanged. Without such arrays it is called at once.
   */
  sendMessage(message: unknown, written?: () => void): void {
    const { head, views, bytes } = encodeMessage(message);
    if (views.length === 0 || this.closed) {
      this.write(FrameKind.message, head);
      written?.();
      return;
    }
    const socket = this.socket;
    socket.cork();
    socket.write(frameHeader(FrameKind.message, bytes));
    socket.write(head);
    for (let i = 0; i < views.length; i++) {
      const v = views[i];
      const pad = paddingAfter(v.byteLength);
      const last = i === views.length - 1;
      socket.write(
        Buffer.from(v.buffer, v.byteOffset, v.byteLength),
        last && pad === undefined ? written : undefined,
      );
      if (pad !== undefined) socket.write(pad, last ? written : undefined);
    }
    process.nextTick(() => socket.uncork());
  }

  /** Sends an administration message. */
  sendAdmin(message: unknown): void {
    this.write(FrameKind.admin, serialize(message));
  }

  /**
   * Sends an administration message while the process exits (an `exit` listener): uncorked, so
   * the frame reaches the socket in this turn. Best effort: behind a full socket it is lost.
   */
  sendAdminNow(message: unknown): void {
    while (this.socket.writableCorked > 0) this.socket.uncork();
    this.sendAdmin(message);
  }

  /** Sends a liveness probe (the other end answers with `pong`, updating `lastHeard`). */
  ping(): void {
    this.write(FrameKind.ping);
  }

  /**
   * Sets the handler of core protocol batches. Batches that came before it are handed over on
   * a later turn, so that whatever the caller sets up in this turn (peer links) comes first;
   * batches arriving until then queue behind them, so every batch is handled in the order
   * sent (a batch handled before an earlier one could name a task function the receiver has
   * not seen yet).
   */
  onMessage(handler: (message: unknown) => void): void {
    this.messageHandler = handler;
    if (this.early.length === 0 || this.replaying) return;
    this.replaying = true;
    setImmediate(() => {
      // One at a time from the front: a handler may be set again while these are handled.
      let m: unknown;
      while (!this.closed && (m = this.early.shift()) !== undefined) {
        if (!this.handOver(this.messageHandler!, m)) break;
      }
      this.replaying = false;
    });
  }

  /** Sets the handler of administration messages; those that came before it are handed over now. */
  onAdmin(handler: (message: unknown) => void): void {
    this.adminHandler = handler;
    for (const m of this.earlyAdmin.splice(0)) if (!this.handOver(handler, m)) return;
  }

  /**
   * Hands a received message to its handler, here or later: a message that makes it throw
   * (valid in form, but not in what it says) closes this link only, as a bad frame does.
   */
  private handOver(handler: (message: unknown) => void, message: unknown): boolean {
    try {
      handler(message);
      return true;
    } catch (error) {
      this.violate(
        new ClusterError('frame', `Malformed message from ${this.remote}: ${error}`, {
          cause: error,
        }),
      );
      return false;
    }
  }

  /** Called once when the link closes or breaks. */
  onClose(handler: (reason?: unknown) => void): void {
    if (this.closed) handler();
    else this.closeHandlers.push(handler);
  }

  /**
   * Closes the link: what was written is still delivered (the socket ends, and is destroyed a
   * second later if the other end does not close its side); close handlers run now.
   */
  close(): void {
    if (!this.socket.destroyed) {
      this.socket.end();
      setTimeout(() => this.socket.destroy(), 1000).unref();
    }
    this.closeNow();
  }

  /**
   * Ends a link that has not authenticated for want of room (`busy`): tells the other end why in
   * a handshake frame (a worker then tries again), reports `error` as a violation, and closes.
   */
  refuse(error: ClusterError): void {
    if (this.closed) return;
    this.options.onViolation?.(error);
    this.sendHandshake({ busy: error.message });
    this.close();
  }

  /** Closes the link because the other end broke a rule. */
  violate(error: ClusterError): void {
    if (this.closed) return;
    this.options.onViolation?.(error);
    this.socket.destroy();
    this.closeNow();
  }

  /** Takes `n` bytes read into `data` (a `data` event's buffer, or memory `DirectReads` chose). */
  private read(n: number, data: Uint8Array): void {
    if (this.closed) return;
    this.lastHeard = performance.now();
    try {
      if (this.direct) this.reader.pushRead(n, data);
      else this.reader.push(data as Buffer);
    } catch (error) {
      this.violate(
        ClusterError.isInstance(error)
          ? error
          : new ClusterError('frame', `Malformed frame: ${error}`, { cause: error }),
      );
    }
  }

  private write(kind: FrameKindValue, body?: Uint8Array): void {
    if (this.closed) return;
    if (body !== undefined && body.byteLength >= LARGE_BODY) {
      // Header and body as two writes (one syscall when corked): no copy of a large body.
      this.socket.cork();
      this.socket.write(frameHeader(kind, body.byteLength));
      this.socket.write(body);
      process.nextTick(() => this.socket.uncork());
    } else this.socket.write(encodeFrame(kind, body));
  }

  private frame(kind: FrameKindValue, body: Buffer): void {
    if (kind === FrameKind.auth) {
      let value: unknown;
      try {
        value = JSON.parse(body.toString('utf8'));
      } catch {
        throw new ClusterError('frame', 'Malformed handshake frame (not JSON)');
      }
      this.onAuthFrame(value);
      return;
    }
    if (!this.authed) {
      throw new ClusterError('auth', `A frame of kind ${kind} came before the handshake`);
    }
    if (kind === FrameKind.ping) this.write(FrameKind.pong);
    else if (kind === FrameKind.pong) return;
    else {
      let value: unknown;
      try {
        value = kind === FrameKind.message ? decodeMessage(body) : deserialize(body);
      } catch (error) {
        if (ClusterError.isInstance(error)) throw error;
        throw new ClusterError('frame', `Malformed frame body: ${error}`, { cause: error });
      }
      if (this.options.anyMessage !== true) checkShape(kind, value);
      if (kind === FrameKind.admin) {
        if (this.adminHandler !== undefined) this.handOver(this.adminHandler, value);
        else this.earlyAdmin.push(value);
      } else if (this.messageHandler !== undefined && !this.replaying) {
        this.handOver(this.messageHandler, value);
      } else this.early.push(value);
    }
  }

  private closeNow(): void {
    this.early.length = 0;
    this.earlyAdmin.length = 0;
    if (this.closed) return;
    this.closed = true;
    for (const handler of this.closeHandlers.splice(0)) handler();
  }
}

/**
 * Checks the form of a decoded frame before anything uses it: a batch is an array of messages,
 * each an array (a pack of runs or results) or an object naming its `op` whose ids and request
 * numbers are numbers (what a message says is checked where it is handled: one that makes its
 * handler throw closes the link too, `handOver`); an administration
 * message is an object naming its `op`. Throws `ClusterError('frame')` otherwise.
 */
function checkShape(kind: FrameKindValue, value: unknown): void {
  if (kind === FrameKind.admin) {
    if (!isOp(value)) throw new ClusterError('frame', 'Malformed administration message');
    return;
  }
  if (!Array.isArray(value)) throw new ClusterError('frame', 'Malformed batch: not an array');
  for (let i = 0; i < value.length; i++) {
    const m = value[i];
    if (Array.isArray(m)) continue;
    if (!isOp(m)) {
      throw new ClusterError('frame', `Malformed batch: message ${i} is neither a pack nor an op`);
    }
    for (const field of NUMBERS) {
      const v = (m as Record<string, unknown>)[field];
      if (v !== undefined && typeof v !== 'number') {
        throw new ClusterError('frame', `Malformed batch: message ${i}'s ${field} is not a number`);
      }
    }
  }
}

/** Fields that are numbers in every protocol message that has them (ids, request numbers). */
const NUMBERS = ['id', 'req', 'key', 'ms', 'seen'] as const;

function isOp(m: unknown): boolean {
  return typeof m === 'object' && m !== null && typeof (m as { op?: unknown }).op === 'string';
}
