// The demo's body: a small task graph on @dtask/core alone (in-process), what ran where, a
// Chrome trace, and dtask's typed errors. `main.ts` runs it from the command line; the test
// next to this file asserts on the summary it returns.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ArgumentError,
  configure,
  DTaskFailedError,
  disableLogging,
  enableLogging,
  fetchLogs,
  type LogEvent,
  shutdown,
  spawn,
  taskProcessor,
  toChromeTrace,
} from '@dtask/core';

/** Options of `runDemo`. */
export interface DemoOptions {
  /** Receives each line of the report; default `console.log`. */
  print?: (line: string) => void;
  /** Where to write the Chrome trace; default `dtask-demo-trace.json` in the OS temp dir. */
  tracePath?: string;
}

/** Where one task ran, read back from the event log. */
export interface Placement {
  task: number;
  name: string | undefined;
  /** Processor id such as `thread:1:1`; undefined for a task that failed before it started. */
  processor: string | undefined;
  outcome: 'finish' | 'fail';
}

/** A typed error the demo provoked, as plain data. */
export interface DemoError {
  name: string;
  code: string;
  message: string;
}

/** What `runDemo` computed and observed. */
export interface DemoSummary {
  /** Compute processors of the default context. */
  processors: string[];
  results: {
    /** (10 · 2) + (10 + 3). */
    diamond: number;
    /** 0² + 1² + … + 7², by a pairwise reduction. */
    sumOfSquares: number;
    /** The async task's message. */
    asyncMessage: string;
    /** `taskProcessor().id` seen inside a task. */
    insideTask: string;
  };
  /** Task → processor, from `fetchLogs()`. */
  placements: Placement[];
  /** Ids of the processors that ran at least one task. */
  ranOn: string[];
  tracePath: string;
  traceEventCount: number;
  /** `spawn` with a misspelt option: an `ArgumentError`, thrown at once. */
  argumentError: DemoError;
  /** A task whose input failed: a `DTaskFailedError` naming the root task. */
  failure: DemoError & { rootTask: string | undefined; upstream: string | undefined };
}

const FAN_OUT = 8;

/**
 * Runs the demo on the default context and shuts it down afterwards. Rejects only if the
 * demo itself is broken (a wrong result or a missing error).
 */
export async function runDemo(options: DemoOptions = {}): Promise<DemoSummary> {
  const print = options.print ?? ((line: string) => console.log(line));
  const tracePath = options.tracePath ?? join(tmpdir(), 'dtask-demo-trace.json');
  enableLogging();
  try {
    const ctx = configure(); // the default context; with @dtask/core alone: the main thread
    const processors = ctx.processors().map((p) => p.id);
    print(`Processors: ${processors.join(', ')}`);

    // A diamond: source → (double, plusThree) → join.
    const source = spawn({ name: 'source' }, () => 10);
    const double = spawn({ name: 'double' }, (x: number) => x * 2, source);
    const plusThree = spawn({ name: 'plus-three' }, (x: number) => x + 3, source);
    const joined = spawn({ name: 'join' }, (a: number, b: number) => a + b, double, plusThree);

    // A fan-out and a pairwise reduction.
    let level = Array.from({ length: FAN_OUT }, (_, i) =>
      spawn({ name: `square-${i}` }, (n: number) => n * n, i),
    );
    for (let round = 0; level.length > 1; round++) {
      const next = [];
      for (let i = 0; i < level.length; i += 2) {
        next.push(
          i + 1 < level.length
            ? spawn(
                { name: `add-${round}.${i / 2}` },
                (a: number, b: number) => a + b,
                level[i],
                level[i + 1],
              )
            : level[i],
        );
      }
      level = next;
    }

    // An async task, and one that asks where it runs.
    const waited = spawn(
      { name: 'async-wait' },
      async (ms: number) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return `waited ${ms} ms`;
      },
      5,
    );
    const whereAmI = spawn({ name: 'where-am-i' }, () => taskProcessor().id);

    const results = {
      diamond: await joined,
      sumOfSquares: await level[0],
      asyncMessage: await waited,
      insideTask: await whereAmI,
    };
    const row = (label: string, value: unknown): void => print(`${label.padEnd(31)} = ${value}`);
    row('diamond (10·2 + 10+3)', results.diamond);
    row(`sum of squares 0..${FAN_OUT - 1}`, results.sumOfSquares);
    row('async task', results.asyncMessage);
    row('taskProcessor() inside a task', results.insideTask);
    check(results.diamond === 33, `diamond gave ${results.diamond}, expected 33`);
    check(results.sumOfSquares === 140, `reduction gave ${results.sumOfSquares}, expected 140`);

    // Typed errors: a bad call throws at once; a failed task fails its dependents.
    const argumentError = misspeltOption();
    print(
      `\nA misspelt option throws at spawn:\n  ${argumentError.name} [${argumentError.code}]: ${argumentError.message}`,
    );
    const failure = await failedChain();
    print(
      `A failed input fails its dependents:\n  ${failure.name} [${failure.code}]: ${failure.message}`,
    );

    // What ran where, and a trace.
    const logs = fetchLogs();
    const placements = placementsOf(logs);
    print('\nWhat ran where (from fetchLogs()):');
    for (const p of placements) {
      const label = p.name ? `${p.name} (#${p.task})` : `#${p.task}`;
      print(
        `  ${label.padEnd(22)} → ${p.processor ?? '(never started)'}${p.outcome === 'fail' ? '  failed' : ''}`,
      );
    }
    const ranOn = [...new Set(placements.flatMap((p) => (p.processor ? [p.processor] : [])))];
    const trace = toChromeTrace(logs);
    writeFileSync(tracePath, trace);
    const traceEventCount = (JSON.parse(trace) as { traceEvents: unknown[] }).traceEvents.length;
    print(`\nChrome trace (${traceEventCount} events): ${tracePath}`);
    print('  open it in https://ui.perfetto.dev or chrome://tracing');

    return {
      processors,
      results,
      placements,
      ranOn,
      tracePath,
      traceEventCount,
      argumentError,
      failure,
    };
  } finally {
    disableLogging();
    await shutdown();
  }
}

function misspeltOption(): DemoError {
  try {
    spawn({ nmae: 'typo' } as never, () => 1);
  } catch (error) {
    if (ArgumentError.isInstance(error)) {
      return { name: error.name, code: error.code, message: error.message };
    }
    throw error;
  }
  throw new Error('demo: spawn accepted an unknown option');
}

async function failedChain(): Promise<DemoSummary['failure']> {
  const divide = spawn(
    { name: 'divide' },
    (x: number) => {
      if (x === 0) throw new RangeError('division by zero');
      return 1 / x;
    },
    0,
  );
  const after = spawn({ name: 'after-divide' }, (x: number) => x + 1, divide);
  const error: unknown = await after.fetch().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!DTaskFailedError.isInstance(error)) throw new Error('demo: the failed chain did not fail');
  return {
    name: error.name,
    code: error.code,
    message: error.message,
    rootTask: error.rootTask.name,
    upstream: error.upstream?.name,
  };
}

/** One row per finished task: its processor (from its `start`) and how it ended. */
function placementsOf(logs: readonly LogEvent[]): Placement[] {
  const started = new Map<number, string | undefined>();
  const out: Placement[] = [];
  for (const e of logs) {
    if (e.task === undefined) continue;
    if (e.kind === 'start') started.set(e.task, e.processor);
    else if (e.kind === 'finish' || e.kind === 'fail') {
      out.push({
        task: e.task,
        name: e.name,
        processor: e.processor ?? started.get(e.task),
        outcome: e.kind === 'finish' ? 'finish' : 'fail',
      });
    }
  }
  return out.sort((a, b) => a.task - b.task);
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new Error(`demo: ${message}`);
}
