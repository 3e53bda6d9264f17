import { describe, expect, it } from 'vitest';
import { ClusterError } from '../cluster-error.js';
import { decodeMessage, encodeMessage, OUT_OF_BAND_BYTES, paddingAfter } from './message-codec.js';

/** The frame body as the link writes it: head, then each view and its padding. */
function body(value: unknown): { bytes: Buffer; views: number } {
  const { head, views, bytes } = encodeMessage(value);
  const parts: Uint8Array[] = [head];
  for (const v of views) {
    parts.push(v);
    const pad = paddingAfter(v.byteLength);
    if (pad) parts.push(pad);
  }
  const joined = Buffer.concat(parts);
  expect(joined.byteLength).toBe(bytes);
  return { bytes: joined, views: views.length };
}

describe('message codec: large typed arrays out of band', () => {
  it('keeps structured-clone semantics for every kind of value and view', () => {
    const big = new Float64Array(OUT_OF_BAND_BYTES / 8 + 3).map((_, i) => i * 0.5);
    const odd = new Int16Array(new ArrayBuffer(OUT_OF_BAND_BYTES * 2 + 2), 2, OUT_OF_BAND_BYTES);
    odd[7] = -3;
    const value = {
      map: new Map([[1, 'a']]),
      set: new Set([2]),
      error: new RangeError('boom'),
      date: new Date(5),
      small: new Float32Array([1.5, 2.5]),
      big,
      again: big, // the same array twice stays one array
      odd,
      buffer: Buffer.alloc(OUT_OF_BAND_BYTES + 1, 7),
      view: new DataView(new ArrayBuffer(16)),
      bigints: new BigInt64Array([1n, -2n]),
      u8: new Uint8Array(OUT_OF_BAND_BYTES).fill(9),
    };
    const { bytes, views } = body(value);
    expect(views).toBe(4); // big, odd, buffer, u8: sent from their memory
    const got = decodeMessage(bytes) as typeof value;
    expect(got.map).toEqual(value.map);
    expect(got.set).toEqual(value.set);
    expect(got.error).toBeInstanceOf(RangeError);
    expect(got.date).toEqual(value.date);
    expect(got.small).toEqual(value.small);
    expect(got.big).toBeInstanceOf(Float64Array);
    expect(got.big).toEqual(big);
    expect(got.again).toBe(got.big);
    expect(got.odd).toEqual(odd);
    expect(Buffer.isBuffer(got.buffer)).toBe(true);
    expect(got.buffer.equals(value.buffer)).toBe(true);
    expect(got.view).toBeInstanceOf(DataView);
    expect(got.bigints).toEqual(value.bigints);
    expect(got.u8).toEqual(value.u8);
    // Read in place: the large views are windows on the frame body, not copies.
    expect(got.big.buffer).toBe(bytes.buffer);
    expect(got.u8.buffer).toBe(bytes.buffer);
  });

  it('sends small messages in one piece', () => {
    const { views } = body([1, 'x', new Uint8Array(10)]);
    expect(views).toBe(0);
  });

  it('rejects a body whose out-of-band bytes are missing, with a frame error', () => {
    const { bytes } = body({ big: new Uint8Array(OUT_OF_BAND_BYTES) });
    expect(() => decodeMessage(bytes.subarray(0, bytes.byteLength - 100))).toThrow(ClusterError);
    expect(() => decodeMessage(Buffer.from([0, 0]))).toThrow(ClusterError);
    const lying = Buffer.from(bytes);
    lying.writeUInt32BE(0xffffff, 0);
    expect(() => decodeMessage(lying)).toThrow(ClusterError);
  });
});
