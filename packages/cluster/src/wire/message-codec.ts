import { DefaultDeserializer, DefaultSerializer } from 'node:v8';
import { ClusterError } from '../cluster-error.js';

/** Typed arrays and Buffers from this size up travel out of band (their bytes after the frame's head). */
export const OUT_OF_BAND_BYTES = 64 * 1024;

/** The kinds of `ArrayBufferView` a message may hold, by the index that names them on the wire. */
const VIEWS = [
  Buffer,
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
  DataView,
] as const;
type ViewClass = (typeof VIEWS)[number];

/** Marks a view whose bytes are out of band (else the view's bytes follow in the v8 stream). */
const OUT_OF_BAND = 0x80;

/** Where out-of-band bytes start and how each is padded: 8 keeps every kind of view aligned. */
const ALIGN = 8;
const aligned = (n: number): number => Math.ceil(n / ALIGN) * ALIGN;

/**
 * One core protocol batch, encoded for a frame: `head` is `[u32 length][v8 stream]` padded to
 * 8 bytes; the bytes of each large typed array or Buffer (`views`, each padded to 8 bytes)
 * follow it in the frame, written from the arrays' own memory (no copy on the sender).
 */
export interface EncodedMessage {
  head: Buffer;
  views: Uint8Array[];
  /** The frame body's length: head, views and padding. */
  bytes: number;
}

class Serializer extends DefaultSerializer {
  readonly views: Uint8Array[] = [];
  outOfBand = 0;

  /** Node calls it for each `ArrayBufferView` (DefaultSerializer treats them as host objects). */
  _writeHostObject(object: object): void {
    const view = object as ArrayBufferView;
    let kind = VIEWS.indexOf(view.constructor as ViewClass);
    if (kind < 0) kind = VIEWS.findIndex((c) => view instanceof c);
    if (kind < 0) throw new TypeError(`Cannot send a ${view.constructor?.name ?? 'view'}`);
    const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
    if (view.byteLength >= OUT_OF_BAND_BYTES) {
      this.writeUint32(kind | OUT_OF_BAND);
      this.writeDouble(view.byteLength);
      this.views.push(bytes);
      this.outOfBand += aligned(view.byteLength);
    } else {
      this.writeUint32(kind);
      this.writeUint32(view.byteLength);
      this.writeRawBytes(bytes);
    }
  }
}

/**
 * Encodes a batch with structured-clone semantics (Node's `v8` serializer), except that typed
 * arrays and Buffers of `OUT_OF_BAND_BYTES` or more are not copied into the stream: the stream
 * names them, and their bytes go after it, straight from their memory. The caller writes
 * `head` then each of `views` (padded) before anything else runs on this thread, or the sender
 * keeps the arrays unchanged until the socket took them (Node's sockets hold written buffers
 * by reference).
 */
export function encodeMessage(value: unknown): EncodedMessage {
  const s = new Serializer();
  s.writeHeader();
  s.writeValue(value);
  const stream = s.releaseBuffer();
  const headBytes = aligned(4 + stream.byteLength);
  const head = Buffer.allocUnsafe(headBytes);
  head.writeUInt32BE(stream.byteLength, 0);
  head.set(stream, 4);
  head.fill(0, 4 + stream.byteLength);
  return { head, views: s.views, bytes: headBytes + s.outOfBand };
}

/** Padding after a view of `length` bytes, out of band (shared zeros, never written to). */
export function paddingAfter(length: number): Buffer | undefined {
  const n = aligned(length) - length;
  return n === 0 ? undefined : ZEROS.subarray(0, n);
}
const ZEROS = Buffer.alloc(ALIGN);

class Deserializer extends DefaultDeserializer {
  /** Where the next out-of-band view's bytes start in `body`. */
  private next: number;

  constructor(
    stream: Buffer,
    private readonly body: Buffer,
    start: number,
  ) {
    super(stream);
    this.next = start;
  }

  /** Node calls it for each view that `_writeHostObject` wrote. */
  _readHostObject(): unknown {
    const tag = this.readUint32();
    const View = VIEWS[tag & ~OUT_OF_BAND] as ViewClass | undefined;
    if (View === undefined || (tag & ~(OUT_OF_BAND | 0x7f)) !== 0) {
      throw new ClusterError('frame', `Malformed frame body: unknown view kind ${tag}`);
    }
    let offset: number;
    let length: number;
    if ((tag & OUT_OF_BAND) !== 0) {
      length = this.readDouble();
      offset = this.next;
      if (!Number.isSafeInteger(length) || length < 0 || offset + length > this.body.byteLength) {
        throw new ClusterError('frame', 'Malformed frame body: out-of-band bytes past its end');
      }
      this.next = offset + aligned(length);
    } else {
      length = this.readUint32();
      // Node's `_readRawBytes` gives the offset in the stream, which starts 4 bytes into `body`.
      offset = 4 + (this as unknown as { _readRawBytes(n: number): number })._readRawBytes(length);
    }
    return view(View, this.body, offset, length);
  }
}

/** A view of `length` bytes at `offset` in `body`, without a copy where alignment allows. */
function view(View: ViewClass, body: Buffer, offset: number, length: number): ArrayBufferView {
  const size = 'BYTES_PER_ELEMENT' in View ? View.BYTES_PER_ELEMENT : 1;
  if (length % size !== 0) {
    throw new ClusterError('frame', `Malformed frame body: ${length} bytes for a ${View.name}`);
  }
  let buffer = body.buffer as ArrayBuffer;
  let at = body.byteOffset + offset;
  if (at % size !== 0) {
    const copy = Buffer.allocUnsafeSlow(length);
    body.copy(copy, 0, offset, offset + length);
    buffer = copy.buffer as ArrayBuffer;
    at = 0;
  }
  if (View === Buffer) return Buffer.from(buffer, at, length);
  if (View === DataView) return new DataView(buffer, at, length);
  return new (View as Exclude<ViewClass, typeof Buffer | typeof DataView>)(
    buffer,
    at,
    length / size,
  );
}

/** Decodes a frame body made by `encodeMessage` (and written with its views after the head). */
export function decodeMessage(body: Buffer): unknown {
  if (body.byteLength < 4) throw new ClusterError('frame', 'Malformed frame body: too short');
  const streamLength = body.readUInt32BE(0);
  if (4 + streamLength > body.byteLength) {
    throw new ClusterError('frame', 'Malformed frame body: its stream runs past its end');
  }
  const stream = body.subarray(4, 4 + streamLength);
  const d = new Deserializer(stream, body, aligned(4 + streamLength));
  d.readHeader();
  return d.readValue();
}
