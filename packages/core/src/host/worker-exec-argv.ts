/**
 * Flags that decide what a node process runs (the code to evaluate or print, how to read it,
 * the test runner, a watcher, a REPL, a syntax check) or that a second process cannot share
 * (the inspector's port). A worker started with them would run the program's own `-e` code
 * again, or fail, instead of running the worker's entry.
 */
const DROPPED = new Set([
  '-e',
  '--eval',
  '-p',
  '--print',
  '-pe',
  '-i',
  '--interactive',
  '-c',
  '--check',
  '--input-type',
  '--test',
  '--watch',
  '--watch-path',
  '--watch-preserve-output',
  '--inspect',
  '--inspect-brk',
  '--inspect-wait',
  '--inspect-port',
  '--debug-port',
  '--run',
]);

/**
 * Flags whose value always comes as the next argument when not given as `--flag=value`, even
 * a value that starts with `-`. For any other flag, a next argument that does not start with
 * `-` is its value: `execArgv` holds only node's options, never the script or its arguments.
 */
const TAKES_VALUE = new Set([
  '-e',
  '--eval',
  '-p',
  '--print',
  '-pe',
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '-C',
  '--conditions',
]);

/** Whether `flag` (without any `=value`) is one a worker must not inherit. */
function isDropped(flag: string): boolean {
  return (
    DROPPED.has(flag) ||
    flag.startsWith('--test-') ||
    flag.startsWith('--watch-') ||
    flag.startsWith('--inspect-')
  );
}

/**
 * The node flags a worker thread or process started by this one should run with: this
 * process's `execArgv` without the flags that change what a process runs (`-e`/`--eval`,
 * `-p`/`--print`, `--input-type`, `--test*`, `--watch*`, `-i`, `-c`, `--run`) or that only one
 * process can use (`--inspect*`), each with its value. Everything else is kept: `--import`,
 * `--require`, `--conditions`, `--experimental-*`, `--max-old-space-size`,
 * `--enable-source-maps` and the like. `@dtask/cluster` starts its local worker processes with
 * it by default, so a program run with `node -e` starts workers that run the worker's entry,
 * not the program again (threads use `threadExecArgv`).
 */
export function workerExecArgv(execArgv: readonly string[] = process.execArgv): string[] {
  const kept: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i];
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const next = execArgv[i + 1];
    const valueNext =
      flag === arg && next !== undefined && (TAKES_VALUE.has(flag) || !next.startsWith('-'));
    if (isDropped(flag)) {
      if (valueNext) i++;
      continue;
    }
    kept.push(arg);
    if (valueNext) kept.push(execArgv[++i]);
  }
  return kept;
}

/** Flags a worker thread accepts in an explicit `execArgv` (V8 and process-wide ones throw). */
function threadAccepts(flag: string): boolean {
  return (
    TAKES_VALUE.has(flag) ||
    flag.startsWith('--experimental-') ||
    flag.startsWith('--no-experimental-') ||
    [
      '--enable-source-maps',
      '--no-warnings',
      '--no-deprecation',
      '--trace-warnings',
      '--trace-deprecation',
      '--trace-uncaught',
      '--disable-warning',
      '--preserve-symlinks',
    ].includes(flag)
  );
}

/**
 * The `execArgv` for `new Worker` (worker threads): `undefined`, which makes the thread inherit
 * this process's flags as Node does, unless `workerExecArgv` drops some (a thread that inherits
 * `--input-type` fails to start); then the flags it keeps that a thread accepts when they are
 * given explicitly (`--import`, `--require`, `--conditions`, `--experimental-*`, warnings and
 * source maps: V8 and process-wide flags such as `--max-old-space-size` are refused there, and
 * the thread shares them with the process anyway).
 */
export function threadExecArgv(
  execArgv: readonly string[] = process.execArgv,
): string[] | undefined {
  const kept = workerExecArgv(execArgv);
  if (kept.length === execArgv.length) return undefined;
  const out: string[] = [];
  for (let i = 0; i < kept.length; i++) {
    const arg = kept[i];
    const eq = arg.indexOf('=');
    const flag = arg.startsWith('--') && eq > 0 ? arg.slice(0, eq) : arg;
    const next = kept[i + 1];
    const valueNext =
      flag === arg && next !== undefined && (TAKES_VALUE.has(flag) || !next.startsWith('-'));
    if (threadAccepts(flag)) {
      out.push(arg);
      if (valueNext) out.push(kept[++i]);
    } else if (valueNext) i++;
  }
  return out;
}
