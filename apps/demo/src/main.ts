// `npm run demo` runs this file (built to dist/main.js): parses the flags, runs the job on
// worker threads with an LMDB store, prints its summary, and exits 2 on a bad flag.
import { ArgumentError } from '@dtask/core';
import { parseDemoFlags } from './flags.js';
import { runJob } from './job.js';
import { summaryLines } from './summary.js';

try {
  const flags = parseDemoFlags(process.argv.slice(2));
  console.log(
    `dtask demo (--size ${flags.size}): 2 worker threads, LMDB store with a 256 KiB memory limit\n`,
  );
  const result = await runJob(flags.sizes);
  for (const line of summaryLines(result)) console.log(line);
} catch (error) {
  if (ArgumentError.isInstance(error)) {
    console.error(error.message);
    process.exitCode = 2;
  } else {
    console.error(error);
    process.exitCode = 1;
  }
}
