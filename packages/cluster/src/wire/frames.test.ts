import { describe, expect, it } from 'vitest';
import { ClusterError } from '../cluster-error.js';
import { encodeFrame, FrameKind, FrameReader } from './frames.js';

describe('frames', () => {
  it('cuts a stream into frames however it is split', () => {
    const frames = [
      encodeFrame(FrameKind.message, Buffer.from('one')),
      encodeFrame(FrameKind.ping),
      encodeFrame(FrameKind.admin, Buffer.alloc(100_000, 7)),
    ];
    const stream = Buffer.concat(frames);
    for (const step of [1, 3, 7, 4096, stream.length]) {
      const got: [number, number][] = [];
      const reader = new FrameReader(1 << 20, (kind, body) => got.push([kind, body.length]));
      for (let i = 0; i < stream.length; i += step) reader.push(stream.subarray(i, i + step));
      expect(got).toEqual([
        [FrameKind.message, 3],
        [FrameKind.ping, 0],
        [FrameKind.admin, 100_000],
      ]);
    }
  });

  it('refuses a frame over the limit before reading its body, and unknown kinds', () => {
    const reader = new FrameReader(10, () => {});
    const big = encodeFrame(FrameKind.message, Buffer.alloc(11)).subarray(0, 5);
    expect(() => reader.push(big)).toThrow(ClusterError);
    expect(() => new FrameReader(10, () => {}).push(big)).toThrow(/over the limit of 10 bytes/);
    const bad = Buffer.from([0, 0, 0, 0, 99]);
    expect(() => new FrameReader(10, () => {}).push(bad)).toThrow(/unknown kind 99/);
  });

  it('reads a large body in place where the socket reads into memory it is given, and copies small frames out of the scratch buffer', () => {
    const got: Buffer[] = [];
    const reader = new FrameReader(1 << 24, (_kind, body) => got.push(body));
    const big = Buffer.alloc(200_000, 9);
    const stream = Buffer.concat([
      encodeFrame(FrameKind.message, Buffer.from('small')),
      encodeFrame(FrameKind.message, big),
      encodeFrame(FrameKind.admin, Buffer.from('after')),
    ]);
    // What a socket with `onread` does: read at most the target's length into the target.
    const scratch = Buffer.alloc(1000);
    const targets: Uint8Array[] = [];
    for (let at = 0; at < stream.length; ) {
      const target = reader.readTarget(scratch);
      targets.push(target);
      const n = Math.min(target.byteLength, stream.length - at);
      stream.copy(target, 0, at, at + n);
      at += n;
      reader.pushRead(n, target);
    }
    expect(got.map((b) => b.length)).toEqual([5, 200_000, 5]);
    expect(got[0].toString()).toBe('small'); // not overwritten by later reads into scratch
    expect(got[2].toString()).toBe('after');
    expect(got[1].equals(big)).toBe(true);
    // After the first scratch read, the big body's bytes were read straight into it.
    expect(targets.some((t) => t.buffer === got[1].buffer && t.byteLength > 1000)).toBe(true);
  });

  it('a large frame header alone sets aside at most the first allocation; the body grows as it comes', () => {
    const before = process.memoryUsage().arrayBuffers;
    const reader = new FrameReader(2 ** 30, () => {});
    const header = Buffer.alloc(5);
    header.writeUInt32BE(2 ** 30 - 1, 0);
    header.writeUInt8(FrameKind.message, 4);
    reader.push(Buffer.concat([header, Buffer.alloc(10)]));
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(100 * 2 ** 20);

    // A body 5 times the first allocation, as data events and as reads in place.
    const body = Buffer.alloc(5 * 16384 + 3); // over LARGE_BODY: filled in its own buffer
    for (let i = 0; i < body.length; i++) body[i] = i % 251;
    const stream = encodeFrame(FrameKind.admin, body);
    for (const step of [1000, 4096, 7777]) {
      const got: Buffer[] = [];
      const pushed = new FrameReader(1 << 20, (_k, b) => got.push(Buffer.from(b)), 16384);
      for (let i = 0; i < stream.length; i += step) pushed.push(stream.subarray(i, i + step));
      expect(got.length === 1 && got[0].equals(body)).toBe(true);
      const inPlace = new FrameReader(1 << 20, (_k, b) => got.push(Buffer.from(b)), 16384);
      const scratch = Buffer.alloc(step);
      let i = 0;
      while (i < stream.length) {
        const target = inPlace.readTarget(scratch);
        const n = Math.min(target.length, step, stream.length - i);
        stream.copy(target, 0, i, i + n);
        inPlace.pushRead(n, target);
        i += n;
      }
      expect(got.length === 2 && got[1].equals(body)).toBe(true);
    }
  });
});
