import { writeSync } from 'node:fs';
import { describeTask } from '../errors/task-failed-error.js';
import type { DTask } from '../task/dtask.js';

/** What the exit report reads of an open context. */
interface OpenScheduler {
  liveTasks(): DTask<unknown>[];
}

const open = new Set<OpenScheduler>();
let listening = false;

/** The most tasks the report names (the count says how many more). */
const MAX_NAMED = 10;

/**
 * Node ends a program whose top-level `await` can never settle with exit status 13 and no
 * word of why; when tasks of an open context are still pending then, this says which (name,
 * id and where each runs) on stderr.
 */
function report(code: number): void {
  // Node 20 sets process.exitCode to 13 and emits 'exit' with 0.
  if (code !== 13 && process.exitCode !== 13) return;
  const pending: DTask<unknown>[] = [];
  for (const s of open) pending.push(...s.liveTasks());
  if (pending.length === 0) return;
  const named = pending.slice(0, MAX_NAMED).map((t) => {
    const where = t.processor === undefined ? 'waiting' : `running on ${t.processor.id}`;
    return `  task ${describeTask({ id: t.id, name: t.options.name })}, ${where}`;
  });
  if (pending.length > MAX_NAMED) named.push(`  ... and ${pending.length - MAX_NAMED} more`);
  writeSync(
    2,
    `dtask: the program ended (exit status 13: a top-level await that can never settle) with ${pending.length} ` +
      `task${pending.length === 1 ? '' : 's'} still pending:\n${named.join('\n')}\n` +
      'A task whose function returns a promise that never settles keeps its awaiter waiting ' +
      'forever; give it a timeout (wait(tasks, { timeoutMs })) or a signal to cancel it.\n',
  );
}

/** Counts `s` among the open contexts the exit report reads, until `forget`. */
export function watchPendingAtExit(s: OpenScheduler): void {
  open.add(s);
  if (!listening) {
    listening = true;
    process.on('exit', report);
  }
}

/** Stops counting `s` (its context closed). */
export function forgetPendingAtExit(s: OpenScheduler): void {
  open.delete(s);
}
