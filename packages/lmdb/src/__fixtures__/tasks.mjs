// Task functions for the lmdb tests, loaded on every thread with everywhere(): they travel by
// reference and may use node:fs (a task records that it ran by appending to a log file).
import { appendFileSync } from 'node:fs';

/** A block of `n` doubles, element j = seed + j. */
export function block(seed, n) {
  const a = new Float64Array(n);
  for (let j = 0; j < n; j++) a[j] = seed + j;
  return a;
}

/** Element-wise sum of two blocks (a new block). */
export function add(a, b) {
  const c = new Float64Array(a.length);
  for (let j = 0; j < a.length; j++) c[j] = a[j] + b[j];
  return c;
}

/** The sum of a block's elements. */
export function total(a) {
  let s = 0;
  for (let j = 0; j < a.length; j++) s += a[j];
  return s;
}

/** `x * factor`, after appending `name` to the file `log` (one line per run). */
export function step(log, name, x, factor) {
  appendFileSync(log, `${name}\n`);
  return x * factor;
}

/** Like `step`, with two inputs. */
export function join(log, name, a, b) {
  appendFileSync(log, `${name}\n`);
  return a + b;
}

/** Appends `name` to `log`, then ends this whole process at once (a crash mid-pipeline). */
export function crash(log, name) {
  appendFileSync(log, `${name}\n`);
  process.kill(process.pid, 'SIGKILL');
}
