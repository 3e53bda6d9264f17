import { describe, expect, it } from 'vitest';
import { IdTable } from './id-table.js';

/** A small seeded generator (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('IdTable', () => {
  it('agrees with a Map through 100,000 random sets, gets and deletes, growing and wrapping', () => {
    for (const seed of [1, 2, 3]) {
      const next = random(seed);
      const table = new IdTable<string>();
      const model = new Map<number, string>();
      // Ids in a moving window, as a connection's tasks in flight: runs collide and wrap.
      let base = 0;
      for (let step = 0; step < 100_000; step++) {
        const id = base + Math.floor(next() * 3_000);
        const op = next();
        if (op < 0.45) {
          table.set(id, `v${step}`);
          model.set(id, `v${step}`);
        } else if (op < 0.9) {
          // Plain comparisons first: an expect per step costs more than the table itself.
          const [got, want] = [table.delete(id), model.delete(id)];
          if (got !== want) expect(got, `delete(${id}) at step ${step}`).toBe(want);
        } else {
          const [got, want] = [table.get(id), model.get(id)];
          if (got !== want) expect(got, `get(${id}) at step ${step}`).toBe(want);
          const [has, hasWanted] = [table.has(id), model.has(id)];
          if (has !== hasWanted) expect(has, `has(${id}) at step ${step}`).toBe(hasWanted);
        }
        if (step % 1_000 === 0) {
          base += 500;
          expect(table.size).toBe(model.size);
        }
      }
      const sorted = [...model].sort((a, b) => a[0] - b[0]);
      expect([...table].sort((a, b) => a[0] - b[0])).toEqual(sorted);
      expect(table.values().sort()).toEqual(sorted.map(([, v]) => v).sort());
      // One comparison of every id's value (an expect per id costs more than the table itself).
      const ids = [...model.keys()];
      expect(ids.map((id) => table.get(id))).toEqual(ids.map((id) => model.get(id)));
    }
  });

  it('takes consecutive ids in and lets them go first in, first out, as a scheduler does', () => {
    const table = new IdTable<number>();
    for (let id = 0; id < 50_000; id++) {
      table.set(id, id);
      if (id >= 2_000) {
        const deleted = table.delete(id - 2_000);
        if (!deleted) expect(deleted, `delete(${id - 2_000})`).toBe(true);
      }
    }
    expect(table.size).toBe(2_000);
    expect(table.values().sort((a, b) => a - b)).toEqual(
      Array.from({ length: 2_000 }, (_, i) => 48_000 + i),
    );
  });

  it('grows for a million ids and shrinks back once they are gone', () => {
    const table = new IdTable<number>();
    for (let id = 0; id < 1_000_000; id++) table.set(id, id);
    const capacity = (t: IdTable<number>) => (t as unknown as { ids: Float64Array }).ids.length;
    expect(capacity(table)).toBe(2 ** 21);
    for (let id = 0; id < 999_000; id++) table.delete(id);
    expect(capacity(table)).toBeLessThanOrEqual(2 ** 14);
    expect(table.values().sort((a, b) => a - b)).toEqual(
      Array.from({ length: 1_000 }, (_, i) => 999_000 + i),
    );
  });

  it('finds the first value a test accepts, or undefined', () => {
    const table = new IdTable<number>();
    for (let id = 0; id < 100; id++) table.set(id, id * 2);
    expect(table.find((v) => v === 58)).toBe(58);
    expect(table.find((v) => v < 0)).toBeUndefined();
    expect(new IdTable<number>().find(() => true)).toBeUndefined();
  });

  it('keeps ids past 2^31 apart, and clear empties it', () => {
    const table = new IdTable<number>();
    const big = 2 ** 40;
    for (let i = 0; i < 100; i++) table.set(big + i * 64, i);
    table.set(7, -1);
    expect(table.get(big + 64 * 99)).toBe(99);
    expect(table.get(big + 1)).toBeUndefined();
    expect(table.delete(big)).toBe(true);
    expect(table.get(big + 64)).toBe(1);
    expect(table.size).toBe(100);
    table.clear();
    expect(table.size).toBe(0);
    expect([...table]).toEqual([]);
    expect(table.get(7)).toBeUndefined();
  });
});
