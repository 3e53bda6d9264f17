import {
  type DTask,
  ExactScope,
  type Processor,
  spawnBeside,
  type TaskQueue,
  withTaskQueue,
} from '@dtask/core';
import type { MoveModifier } from './move-in-place.js';
import { toWrittenPart, type WrittenPart } from './written-parts.js';

/** Tasks spawned here go straight to the scheduler, never into a region around this code. */
const DIRECT: TaskQueue = { enqueue: (task, submit) => submit(task) };

/**
 * Writes `value`, the written copy of a moved `Chunk`/`DTask` argument of `beside`, into that
 * argument's data where it lives: on the worker `holder`, by a helper task that runs there on
 * that very object (`inPlaceArgs`) and copies the parts `written` names into it
 * (`moveInPlace`, as datadeps' own module loaded there has it: rules registered there apply).
 * Resolves once it is written; rejects with the helper's error.
 */
export function writeBackOn(
  beside: DTask<unknown>,
  holder: Processor,
  target: unknown,
  value: unknown,
  written: readonly MoveModifier[],
): Promise<unknown> {
  const at = new ExactScope(holder);
  const parts = written.map(toWrittenPart);
  const task = withTaskQueue(DIRECT, () =>
    spawnBeside(
      beside,
      { name: 'datadeps.writeBack', scope: at, computeScope: at, inPlaceArgs: [0] },
      writeBackHere,
      target,
      value,
      parts,
      datadepsModuleUrl(),
    ),
  );
  return task.fetch();
}

/**
 * The helper's function, on the worker holding the data: loads datadeps there (by URL, as it
 * is on this machine) and moves `value` into `target`. Self-contained on purpose (it uses only
 * its parameters and globals): it travels to the worker as source text.
 */
export async function writeBackHere(
  target: unknown,
  value: unknown,
  parts: readonly WrittenPart[],
  moduleUrl: string,
): Promise<void> {
  // Not a literal import(): a test runner would rewrite it in this function's source.
  const load = new Function('url', 'return import(url)') as (url: string) => Promise<{
    moveWrittenParts(target: unknown, value: unknown, parts: readonly WrittenPart[]): void;
  }>;
  let datadeps: Awaited<ReturnType<typeof load>>;
  try {
    datadeps = await load(moduleUrl);
  } catch (cause) {
    const error = new Error(
      `A task wrote a copy of data held here, and @dtask/datadeps could not be loaded here ` +
        `(${moduleUrl}) to write it back: ${String(cause)}. Scope the task where the data is`,
    ) as Error & { code: string };
    error.name = 'ArgumentError';
    error.code = 'DTASK_ARGUMENT';
    throw error;
  }
  datadeps.moveWrittenParts(target, value, parts);
}

/**
 * The URL of this package's built entry module, which the write-back helper imports on the
 * worker (worker runtimes load plain JS: from sources, tests, it is `dist/index.js` too).
 */
export function datadepsModuleUrl(): string {
  const here = import.meta.url;
  return new URL(here.endsWith('.ts') ? '../dist/index.js' : './index.js', here).href;
}
