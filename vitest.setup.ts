// Runs before every test file (vitest.config.ts `setupFiles`).
import { appendFileSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, afterEach, expect } from 'vitest';

// Each file starts with a folder's type in node's one shared stat array. An earlier file's last
// `lstat` of a socket (removing a folder of Unix sockets) would stay there, and Node 20's
// `realpathSync` reads it again for path parts it knows to be real and stops at the first: a
// module imported natively through a symlink (pnpm's `node_modules/@dtask/core`, as a
// conformance probe re-exports core's function) would then load as a second copy.
lstatSync(process.cwd());

/** A typed array (not a DataView): what `ArrayBuffer.isView` accepts, less DataView. */
type TypedArray = Exclude<ArrayBufferView, DataView> & ArrayLike<number | bigint>;

function isTypedArray(value: unknown): value is TypedArray {
  return ArrayBuffer.isView(value) && !(value instanceof DataView);
}

/**
 * True when `a` (a typed or a plain array) has an own enumerable key beyond its indices (an
 * expando). `Object.keys` would list every index first, as a string (about 170 ms for a million
 * elements); node's `inspect`, told to show no element, prints only the other keys, after the
 * count of elements it leaves out (`Float64Array(2) [ ... 2 more items, tag: 'a' ]`), in
 * microseconds. Anything but the bare count (a custom prefix included) counts as an expando: the
 * arrays are then left to vitest, which gives the verdict itself.
 */
function hasExpando(a: ArrayLike<unknown>): boolean {
  const shown = inspect(a, {
    maxArrayLength: 0,
    depth: 0,
    customInspect: false,
    breakLength: Infinity,
  });
  const n = a.length;
  return !shown.endsWith(n === 0 ? '[]' : `[ ... ${n} more item${n === 1 ? '' : 's'} ]`);
}

/**
 * `toEqual` (and every other deep equality) on two typed arrays, with vitest's own result,
 * element by element in a plain loop: vitest compares a typed array as a generic iterable (an
 * `equals` call per element, then its `Object.entries` as arrays of pairs), about 10 µs an
 * element, seconds for one 64³ array. Same verdict as vitest's: the same constructor, length
 * and elements (`Object.is`, so -0 ≠ 0 and NaN = NaN). Arrays with expando properties are left
 * to vitest.
 */
function typedArrayEquality(a: unknown, b: unknown): boolean | undefined {
  if (!isTypedArray(a) || !isTypedArray(b)) return undefined;
  if (a.constructor !== b.constructor || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  if (hasExpando(a) || hasExpando(b)) return undefined;
  return true;
}

/** True when every element of `a` is a number (no hole, no other value) and it has no expando. */
function allNumbers(a: unknown[]): boolean {
  for (let i = 0; i < a.length; i++) if (typeof a[i] !== 'number') return false;
  return !hasExpando(a);
}

/**
 * `toEqual` (and every other deep equality) on two plain arrays of numbers, in a plain loop:
 * vitest's takes about 0.6 µs an element (10 ms for 16,384), and the array tests compare
 * collected values as `Array.from(data)` thousands of times. Same verdict as vitest's: the same
 * length and elements (`Object.is`). Arrays holding anything but numbers (holes, matchers,
 * objects) or with expando properties are left to vitest.
 */
function numberArrayEquality(a: unknown, b: unknown): boolean | undefined {
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return undefined;
  if (!allNumbers(a) || !allNumbers(b)) return undefined;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

// Once per process: files sharing one (`isolate: false`) run this file again each.
const installed = Symbol.for('dtask.test.typedArrayEquality');
const marks = globalThis as { [installed]?: true };
if (!marks[installed]) {
  marks[installed] = true;
  expect.addEqualityTesters([typedArrayEquality, numberArrayEquality]);
}

/** A process's CPU and that of the children it has waited for, in ticks, from its `stat`. */
function statTicks(pid: string): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime, stime, cutime, cstime: fields 14–17 of proc(5), counted from the state (3rd)
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
}

/** The CPU ticks of the live descendants of process `pid` (children of any of its threads). */
function liveDescendantTicks(pid: string): number {
  let ticks = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let children: string[];
    try {
      children = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ');
    } catch {
      continue; // the thread ended meanwhile
    }
    for (const child of children) {
      if (child === '' || child === '\n') continue;
      try {
        ticks += statTicks(child.trim()) + liveDescendantTicks(child.trim());
      } catch {
        // it ended and was waited for meanwhile: its CPU is in this process's from now on
      }
    }
  }
  return ticks;
}

/**
 * CPU time of this process (its threads included), of the child processes it has waited for
 * (theirs in turn included) and of its live descendants (worker processes kept between test
 * files), in ms, from /proc (Linux; 0 elsewhere).
 */
function cpuMs(): number {
  try {
    return (statTicks('self') + liveDescendantTicks('self')) * 10; // USER_HZ is 100 on Linux
  } catch {
    return 0;
  }
}

// DTASK_TEST_CPU_LOG=<file>: each test file appends a line, its path, the CPU it took (its
// imports, tests and hooks, with the threads and child processes they started, and what worker
// processes kept alive between files spent meanwhile), the wall time,
// both in ms, how many `expect` calls its tests made (tens of µs or more each), and the process
// it ran in (files sharing a process name the same one): where the test command's time goes
// (docs/performance.md).
const cpuLog = process.env.DTASK_TEST_CPU_LOG;
if (cpuLog) {
  const cpu0 = cpuMs();
  const wall0 = performance.now();
  const file = relative(process.cwd(), expect.getState().testPath ?? '?');
  let assertions = 0;
  afterEach(() => {
    assertions += expect.getState().assertionCalls;
  });
  afterAll(() => {
    const wall = Math.round(performance.now() - wall0);
    appendFileSync(cpuLog, `${file} ${cpuMs() - cpu0} ${wall} ${assertions} ${process.pid}\n`);
  });
}
