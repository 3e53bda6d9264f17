// A real X server for the headlessgl tests: the DISPLAY already set (e.g. under xvfb-run -a), or
// an Xvfb this fixture starts (Debian's xvfb; scripts/test-deps.sh installs it). Without one the
// headlessgl tests print why and skip.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { afterAll } from 'vitest';

let started: ChildProcess | undefined;
let answer: Promise<string | null> | undefined;

afterAll(() => {
  started?.kill();
  started = undefined;
});

/** Null once an X display is set in `DISPLAY`; otherwise the reason there is none. */
export function xDisplay(): Promise<string | null> {
  answer ??= open();
  return answer;
}

async function open(): Promise<string | null> {
  if (process.env.DISPLAY) return null;
  if (spawnSync('Xvfb', ['-help']).error) {
    return 'no X server: DISPLAY is unset and Xvfb is not installed (apt-get install xvfb; scripts/test-deps.sh does)';
  }
  const child = spawn('Xvfb', ['-displayfd', '1', '-screen', '0', '64x64x24', '-nolisten', 'tcp'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const display = await new Promise<string | null>((resolve) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', () => resolve(null));
    setTimeout(() => resolve(null), 10_000);
  });
  if (!display) {
    child.kill();
    return 'Xvfb did not start within 10 s';
  }
  child.unref();
  started = child;
  process.env.DISPLAY = `:${display}`;
  return null;
}
