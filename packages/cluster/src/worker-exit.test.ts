// A remote worker ends itself when its scheduler is gone: stopped (SIGSTOP, as a silent
// partition looks from the worker: nothing closes, nothing answers) it exits once the
// scheduler's heartbeat timeout passes without a probe; killed outright, at once. Real child
// processes: a scheduler program (`__fixtures__/scheduler-main.mjs`) and the built
// `dtask-worker`.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const SECRET = 'worker-exit-test-secret-0123';
const bin = fileURLToPath(new URL('../dist/bin/dtask-worker.js', import.meta.url));
const main = fileURLToPath(new URL('./__fixtures__/scheduler-main.mjs', import.meta.url));
const built = existsSync(bin);
const children: ChildProcess[] = [];

afterEach(() => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGCONT');
      c.kill('SIGKILL');
    }
  }
});

/** Starts the scheduler program and one `dtask-worker` joined to it. */
async function schedulerWithWorker() {
  const scheduler = spawn(process.execPath, [main, SECRET], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(scheduler);
  let out = '';
  const seen = (what: RegExp, ms: number) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const m = out.match(what);
        if (m) {
          clearTimeout(timer);
          scheduler.stdout!.off('data', onData);
          resolve(m);
        }
      };
      const onData = (d: Buffer) => {
        out += d;
        check();
      };
      const timer = setTimeout(
        () => reject(new Error(`no ${what} from the scheduler: ${out}`)),
        ms,
      );
      scheduler.stdout!.on('data', onData);
      check();
    });
  const [, address] = await seen(/address (\S+)/, 20_000);
  const worker = spawn(process.execPath, [bin, '--connect', address], {
    env: { ...process.env, DTASK_SECRET: SECRET },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(worker);
  let stderr = '';
  worker.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((res) =>
    worker.once('exit', (code, signal) => res({ code, signal, at: performance.now() })),
  );
  await seen(/joined/, 20_000);
  return { scheduler, worker, exited, stderr: () => stderr };
}

describe.skipIf(!built)('a remote worker whose scheduler is gone', () => {
  it('exits after the heartbeat timeout when the scheduler is stopped (silent, sockets open)', async () => {
    const { scheduler, exited, stderr } = await schedulerWithWorker();
    const t0 = performance.now();
    scheduler.kill('SIGSTOP');
    // It exits (the event; the test's timeout is a hang's bound), not before its heartbeat
    // timeout, and says that was why.
    const end = await exited;
    expect(end.at - t0).toBeGreaterThan(1000);
    expect(stderr(), `exit after ${Math.round(end.at - t0)} ms`).toMatch(
      /no word from the scheduler .*\(heartbeat timeout 1500 ms\)/,
    );
  }, 60_000);

  it('exits at once when the scheduler is killed', async () => {
    const { scheduler, exited, stderr } = await schedulerWithWorker();
    scheduler.kill('SIGKILL');
    // At once: on its links closing (the main thread exits 0, or the heartbeat thread ends the
    // process first), not on its heartbeat timeout (which says so), however late a loaded
    // machine runs it.
    const end = await exited;
    expect([end.code === 0, end.signal === 'SIGKILL'], stderr()).toContain(true);
    expect(stderr()).not.toMatch(/no word from the scheduler/);
  }, 60_000);
});
