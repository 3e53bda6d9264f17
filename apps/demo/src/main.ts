// `npm run demo` runs this file (built to dist/main.js): the demo, then a clean exit.
import { runDemo } from './demo.js';

console.log('dtask demo: @dtask/core alone, tasks run in-process\n');
try {
  await runDemo();
  console.log('\nDone: the default context is shut down, nothing keeps node alive.');
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
