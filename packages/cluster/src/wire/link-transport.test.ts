// Core's transport conformance kit against the cluster's transport: two authenticated links
// over a real Unix socket.
import { type MakeTransportPair, transportConformance } from '@dtask/core/testing';
import { describe, expect, it } from 'vitest';
import { linkPair as makeLinks } from '../__fixtures__/link-pair.js';
import { linkTransport } from './link-transport.js';

const linkPair = (async () => {
  const { opened, accepted, dispose } = await makeLinks();
  return { ends: [linkTransport(opened), linkTransport(accepted)], dispose };
}) satisfies MakeTransportPair;

transportConformance('cluster link transport', linkPair, { describe, it });

describe('cluster link transport: large arrays out of band', () => {
  it.each([
    ['to the side that opened the link (read in place)', 1, 0],
    ['to the side that accepted it', 0, 1],
  ])(
    'delivers a transferred 8 MiB Float64Array %s intact, detaching it once written (it hung when detached before the corked write)',
    async (_way, from, to) => {
      const pair = await linkPair();
      try {
        const [a, b] = [pair.ends[from], pair.ends[to]];
        const got = new Promise<unknown>((resolve) => b.onMessage(resolve));
        const big = new Float64Array(1 << 20).map((_, i) => i);
        a.send({ big }, [big.buffer]);
        // Churn memory while the socket drains: the bytes must still be the array's.
        for (let i = 0; i < 20; i++) new Float64Array(1 << 18).fill(-1);
        const { big: moved } = (await got) as { big: Float64Array };
        expect(big.buffer.byteLength).toBe(0); // given up once written, as to a thread
        expect(moved.length).toBe(1 << 20);
        expect(moved.every((x, i) => x === i)).toBe(true);
      } finally {
        pair.dispose();
      }
    },
  );
});
