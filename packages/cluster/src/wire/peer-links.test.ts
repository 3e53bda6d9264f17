// PeerLinks over two real Unix-socket links (one opened by each side): core's transport
// conformance kit, which link carries what, and how the pair ends.
import { type MakeTransportPair, transportConformance } from '@dtask/core/testing';
import { describe, expect, it, vi } from 'vitest';
import { linkPair } from '../__fixtures__/link-pair.js';
import { PeerLinks } from './peer-links.js';

/** Sides a and b, each with the link it opened and the one the other opened. */
async function peerPair() {
  const ab = await linkPair(); // opened by a
  const ba = await linkPair(); // opened by b
  const a = new PeerLinks(ab.opened, true);
  a.add(ba.accepted, false);
  const b = new PeerLinks(ab.accepted, false);
  b.add(ba.opened, true);
  return {
    a,
    b,
    ab,
    ba,
    dispose() {
      ab.dispose();
      ba.dispose();
    },
  };
}

transportConformance(
  'cluster peer links',
  (async () => {
    const { a, b, dispose } = await peerPair();
    return { ends: [a, b], dispose };
  }) satisfies MakeTransportPair,
  { describe, it },
);

describe('PeerLinks', () => {
  it('sends on the link the other side opened, so each side receives where it reads in place', async () => {
    const { a, b, ab, ba, dispose } = await peerPair();
    try {
      expect(ab.opened.readsInPlace).toBe(true);
      expect(ab.accepted.readsInPlace).toBe(false);
      const aSends = vi.spyOn(ba.accepted, 'sendMessage');
      const bSends = vi.spyOn(ab.accepted, 'sendMessage');
      const atB = new Promise((resolve) => b.onMessage(resolve));
      const atA = new Promise((resolve) => a.onMessage(resolve));
      const big = new Float64Array(1 << 20).map((_, i) => i);
      a.send({ big });
      b.send({ big });
      for (const got of (await Promise.all([atB, atA])) as { big: Float64Array }[]) {
        expect(got.big.every((x, i) => x === i)).toBe(true);
      }
      expect(aSends).toHaveBeenCalledTimes(1);
      expect(bSends).toHaveBeenCalledTimes(1);
    } finally {
      dispose();
    }
  });

  it('sends over its one link until the second comes', async () => {
    const ab = await linkPair();
    try {
      const a = new PeerLinks(ab.opened, true);
      const got = new Promise((resolve) => ab.accepted.onMessage(resolve));
      a.send(['hello']);
      expect(await got).toEqual(['hello']);
    } finally {
      ab.dispose();
    }
  });

  it('ends when either link closes: the other is closed and close handlers run once', async () => {
    const { a, ab, ba, dispose } = await peerPair();
    try {
      const closed = vi.fn();
      a.onClose(closed);
      ba.opened.close(); // the peer's side of one link goes away
      await vi.waitFor(() => expect(closed).toHaveBeenCalledTimes(1));
      expect(a.isClosed).toBe(true);
      expect(ab.opened.isClosed).toBe(true);
      const late = await linkPair();
      a.add(late.opened, true); // a link added to a pair that is gone is closed at once
      expect(late.opened.isClosed).toBe(true);
      late.dispose();
      expect(closed).toHaveBeenCalledTimes(1);
    } finally {
      dispose();
    }
  });
});
