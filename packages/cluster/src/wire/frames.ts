import { ClusterError } from '../cluster-error.js';

/**
 * What a frame carries. Every frame is `[u32 body length][u8 kind][body]`, big-endian.
 * `auth` frames are the only ones read before the handshake is done.
 */
export const FrameKind = {
  /** Handshake steps (JSON). */
  auth: 1,
  /** A batch of core protocol messages (v8 serialized). */
  message: 2,
  /** A cluster administration message (v8 serialized). */
  admin: 3,
  /** Liveness probe; answered with `pong`. */
  ping: 4,
  pong: 5,
} as const;

/** One of `FrameKind`'s values. */
export type FrameKindValue = (typeof FrameKind)[keyof typeof FrameKind];

const KINDS = new Set<number>(Object.values(FrameKind));
const HEADER = 5;

/** Encodes one frame (the header and body in one buffer, so a frame is one socket write). */
export function encodeFrame(kind: FrameKindValue, body: Uint8Array = new Uint8Array(0)): Buffer {
  const frame = Buffer.allocUnsafe(HEADER + body.byteLength);
  frame.writeUInt32BE(body.byteLength, 0);
  frame.writeUInt8(kind, 4);
  frame.set(body, HEADER);
  return frame;
}

/** Bodies from this size up are written after their header as they are, not copied behind it. */
export const LARGE_BODY = 64 * 1024;

/**
 * The most memory a large frame's header alone makes the reader set aside: a body longer than
 * this gets a buffer of this size first, doubled (and the bytes so far copied over) each time it
 * fills, so a header announcing 1 GiB followed by nothing costs 64 MiB, not 1 GiB.
 */
export const FIRST_LARGE_ALLOCATION = 64 * 1024 * 1024;

/** The header of a frame whose body is written separately (large bodies: no extra copy). */
export function frameHeader(kind: FrameKindValue, bodyLength: number): Buffer {
  const header = Buffer.allocUnsafe(HEADER);
  header.writeUInt32BE(bodyLength, 0);
  header.writeUInt8(kind, 4);
  return header;
}

/**
 * Cuts a byte stream into frames. Throws `ClusterError('frame')` on a frame longer than
 * `maxBytes` (before reading its body) or of an unknown kind: the caller closes that
 * connection only.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** A large frame being filled as its bytes arrive (one copy, made while the rest streams in). */
  private large: { kind: FrameKindValue; body: Buffer; filled: number; total: number } | undefined;

  /**
   * @param maxBytes the largest body accepted (raised once a connection is authenticated)
   * @param onFrame called with each whole frame
   * @param firstAllocation see `FIRST_LARGE_ALLOCATION`
   */
  constructor(
    public maxBytes: number,
    private readonly onFrame: (kind: FrameKindValue, body: Buffer) => void,
    private readonly firstAllocation = FIRST_LARGE_ALLOCATION,
  ) {}

  /** Takes the next bytes read from the socket; calls `onFrame` for each whole frame. */
  push(data: Buffer): void {
    if (this.large !== undefined) data = this.fill(data);
    if (data.byteLength === 0) return;
    this.chunks.push(data);
    this.buffered += data.byteLength;
    while (this.large === undefined && this.buffered >= HEADER) {
      const head = this.peek(HEADER);
      const length = head.readUInt32BE(0);
      const kind = head.readUInt8(4);
      if (!KINDS.has(kind)) {
        throw new ClusterError('frame', `Malformed frame: unknown kind ${kind}`);
      }
      if (length > this.maxBytes) {
        throw new ClusterError(
          'frame',
          `Frame of ${length} bytes is over the limit of ${this.maxBytes} bytes (maxFrameBytes)`,
        );
      }
      if (this.buffered < HEADER + length) {
        if (length >= LARGE_BODY) {
          // Start filling its own buffer with what is here; the rest is copied in as it comes.
          this.take(HEADER);
          const rest = this.buffered > 0 ? this.take(this.buffered) : Buffer.alloc(0);
          this.large = {
            kind: kind as FrameKindValue,
            body: Buffer.allocUnsafeSlow(Math.min(length, this.firstAllocation)),
            filled: 0,
            total: length,
          };
          this.fill(rest);
        }
        return;
      }
      const frame = this.take(HEADER + length);
      this.onFrame(kind as FrameKindValue, frame.subarray(HEADER));
    }
  }

  /**
   * Where the socket should read next, when it reads into memory it is given (`onread`): the
   * rest of the large frame being filled, so its bytes land in place with no copy, else
   * `scratch` (whose bytes `pushRead` copies out).
   */
  readTarget(scratch: Buffer): Buffer {
    const large = this.large;
    return large === undefined ? scratch : large.body.subarray(large.filled);
  }

  /** Takes `n` bytes the socket read into `target` (the last `readTarget`). */
  pushRead(n: number, target: Uint8Array): void {
    const large = this.large;
    if (large !== undefined && target.buffer === large.body.buffer) {
      large.filled += n;
      this.filledUp(large);
    } else this.push(Buffer.from(target.subarray(0, n)));
  }

  /** Copies `data` into the large frame being filled; returns what is left after it. */
  private fill(data: Buffer): Buffer {
    const large = this.large!;
    let at = 0;
    while (this.large === large && at < data.byteLength) {
      const n = Math.min(data.byteLength - at, large.body.byteLength - large.filled);
      data.copy(large.body, large.filled, at, at + n);
      large.filled += n;
      at += n;
      this.filledUp(large);
    }
    return data.subarray(at);
  }

  /** Hands over the large frame once whole; else grows its buffer once full. */
  private filledUp(large: { kind: FrameKindValue; body: Buffer; filled: number; total: number }) {
    if (large.filled === large.total) {
      this.large = undefined;
      this.onFrame(large.kind, large.body);
    } else if (large.filled === large.body.byteLength) {
      const body = Buffer.allocUnsafeSlow(Math.min(large.total, large.body.byteLength * 2));
      large.body.copy(body, 0, 0, large.filled);
      large.body = body;
    }
  }

  /** The first `n` buffered bytes, joined only when they span chunks. */
  private peek(n: number): Buffer {
    if (this.chunks[0].byteLength < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0];
  }

  /** Removes and returns the first `n` buffered bytes. */
  private take(n: number): Buffer {
    let first = this.chunks[0];
    if (first.byteLength < n) {
      first = Buffer.concat(this.chunks);
      this.chunks = [first];
    }
    this.buffered -= n;
    if (first.byteLength === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    return first.subarray(0, n);
  }
}
