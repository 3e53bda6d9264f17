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
});
