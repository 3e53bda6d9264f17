// `npm run demo` runs this file (built to dist/main.js): parses the flags, runs the job on
// worker threads, a worker process, TensorFlow.js and gpu.js processors and an LMDB store with a
// progress bar, prints its summary, writes the HTML report and prints its path; exits 2 on a bad
// flag; `--help` prints the usage and exits 0.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ArgumentError, type DTask } from '@dtask/core';
import { DEMO_HELP, type DemoFlags, parseDemoFlags } from './flags.js';

try {
  const flags = parseDemoFlags(process.argv.slice(2));
  if (flags.help) console.log(DEMO_HELP);
  else await runDemo(flags);
} catch (error) {
  if (ArgumentError.isInstance(error)) {
    console.error(error.message);
    process.exitCode = 2;
  } else {
    console.error(error);
    process.exitCode = 1;
  }
}

/** Runs the job at the flags' size, draws its progress, prints the summary and the report. */
async function runDemo(flags: DemoFlags): Promise<void> {
  // Loaded once the flags are good: `--help` and a bad flag answer without loading the plugins
  // (TensorFlow.js, gpu.js, LMDB: most of the program's start).
  const [{ progressBar, writeReport }, { runJob }, { summaryLines }] = await Promise.all([
    import('@dtask/viz'),
    import('./job.js'),
    import('./summary.js'),
  ]);
  console.log(
    `dtask demo (--size ${flags.size}): 2 worker threads, 1 worker process with 2 threads, ` +
      'a TensorFlow.js processor, a gpu.js processor, an LMDB store with a 256 KiB memory limit\n',
  );
  let drawn: Promise<unknown> = Promise.resolve();
  const result = await runJob(flags.sizes, {
    onPipelineTasks: (tasks: DTask<unknown>[]) => {
      drawn = progressBar(tasks, { stream: process.stderr });
    },
  });
  await drawn;
  const out = resolve(flags.out ?? join(mkdtempSync(join(tmpdir(), 'dtask-demo-')), 'report.html'));
  await writeReport(result.logs, out);
  for (const line of summaryLines(result)) console.log(line);
  console.log(`report: ${out}`);
}
