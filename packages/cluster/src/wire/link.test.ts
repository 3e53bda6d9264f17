import { describe, expect, it } from 'vitest';
import { linkPair } from '../__fixtures__/link-pair.js';

describe('Link', () => {
  it('hands batches to a handler set late in the order they were sent, also those arriving meanwhile', async () => {
    const { opened, accepted, dispose } = await linkPair();
    try {
      for (const n of [1, 2, 3]) opened.sendMessage([n]);
      await new Promise((r) => setTimeout(r, 100)); // they wait in the link: no handler yet
      const got: number[] = [];
      // More come while the first ones are still to be handed over.
      for (const n of [4, 5, 6]) opened.sendMessage([n]);
      accepted.onMessage((batch) => got.push((batch as number[])[0]));
      const deadline = Date.now() + 5000;
      while (got.length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      expect(got).toEqual([1, 2, 3, 4, 5, 6]);
      opened.sendMessage([7]);
      while (got.length < 7 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      expect(got.at(-1)).toBe(7);
    } finally {
      dispose();
    }
  });
});
