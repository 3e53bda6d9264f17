import { describe, expect, it } from 'vitest';
import { random } from './__fixtures__/reference.js';
import { describeOnRigs, rigForTest } from './__fixtures__/rig.js';
import { Blocks, distribute, norm, opnorm } from './index.js';

/** Julia's norm(x, p) of a plain array. */
function plainNorm(x: ArrayLike<number>, p: number): number {
  const a = Array.from(x, Math.abs);
  if (p === Infinity) return Math.max(0, ...a);
  if (p === -Infinity) return Math.min(...a);
  if (p === 0) return a.filter((v) => v !== 0).length;
  return a.reduce((s, v) => s + v ** p, 0) ** (1 / p);
}

/** Julia's opnorm(A, p) of a plain column-major m×n matrix (p = 1 or Infinity). */
function plainOpnorm(x: ArrayLike<number>, m: number, n: number, p: number): number {
  let best = 0;
  for (let k = 0; k < (p === 1 ? n : m); k++) {
    let s = 0;
    for (let l = 0; l < (p === 1 ? m : n); l++)
      s += Math.abs(p === 1 ? x[l + k * m] : x[k + l * m]);
    best = Math.max(best, s);
  }
  return best;
}

/** The largest singular value of a plain m×n matrix, by power iteration on AᵀA. */
function plainOpnorm2(x: ArrayLike<number>, m: number, n: number): number {
  let v = new Float64Array(n).fill(1 / Math.sqrt(n));
  let sigma = 0;
  for (let it = 0; it < 2000; it++) {
    const av = new Float64Array(m);
    for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) av[i] += x[i + j * m] * v[j];
    const w = new Float64Array(n);
    for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) w[j] += x[i + j * m] * av[i];
    const len = Math.hypot(...w);
    const next = Math.sqrt(len);
    v = w.map((y) => y / len);
    if (Math.abs(next - sigma) <= 1e-15 * next) return next;
    sigma = next;
  }
  return sigma;
}

const close = (got: number, want: number) =>
  expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(want)));

describeOnRigs('on %s', (rig) => {
  it('norm', async () => {
    const cases: [number[], number[]][] = [
      [
        [16, 16],
        [16, 16],
      ], // Dagger's: one block
      [[16], [5]],
      [
        [16, 16, 16],
        [7, 16, 5],
      ],
      [
        [37, 23],
        [8, 6],
      ],
      [[29], [29]],
      [
        [9, 11, 3],
        [4, 4, 2],
      ],
    ];
    let seed = 1;
    for (const [shape, blocks] of cases) {
      const n = shape.reduce((a, b) => a * b, 1);
      const x = random(n, seed++);
      x[3] = 0;
      const A = distribute(x, shape, new Blocks(...blocks), { context: rig.context });
      for (const p of [2, 1, Infinity, -Infinity, 0, 3, 0.5])
        close(await norm(A, p), plainNorm(x, p));
      close(await norm(A), plainNorm(x, 2));
    }
    // A view (every other row of a slice) is measured as the elements it holds.
    const x = random(37 * 23, 9);
    const A = distribute(x, [37, 23], new Blocks(8, 6), { context: rig.context });
    const part = await A.slice([1, 30, 2], [3, 20]).collect();
    close(await norm(A.slice([1, 30, 2], [3, 20])), plainNorm(part.data, 2));
  });

  it('opnorm', async () => {
    let seed = 20;
    for (const [m, n, bm, bn] of [
      [16, 16, 16, 16],
      [37, 23, 8, 6],
      [23, 29, 6, 7],
      [5, 41, 5, 9],
    ]) {
      const x = random(m * n, seed++);
      const A = distribute(x, [m, n], new Blocks(bm, bn), { context: rig.context });
      close(await opnorm(A, 1), plainOpnorm(x, m, n, 1));
      close(await opnorm(A, Infinity), plainOpnorm(x, m, n, Infinity));
      // p = 2 (Julia's default): the largest singular value
      const two = plainOpnorm2(x, m, n);
      expect(Math.abs((await opnorm(A)) - two)).toBeLessThanOrEqual(1e-10 * two);
      expect(await opnorm(A, 2)).toBe(await opnorm(A));
      const t = await A.transpose().collect();
      close(await opnorm(A.transpose(), 1), plainOpnorm(t.data, n, m, 1));
    }
  });
});

describe('norm and opnorm errors at the call', () => {
  it('a p they do not take, a matrix for opnorm', async () => {
    const context = await rigForTest();
    const A = distribute(random(12, 1), [3, 4], new Blocks(2, 2), { context });
    await expect(norm(A, -1)).rejects.toThrow(/p must be a number ≥ 0, Infinity or -Infinity/);
    await expect(opnorm(A, 3)).rejects.toThrow(/p must be 1 .*, 2 .* or Infinity/);
    const v = distribute(random(12, 1), [12], new Blocks(5), { context });
    await expect(opnorm(v, 1)).rejects.toMatchObject({ code: 'DTASK_ARGUMENT' });
  });
});
