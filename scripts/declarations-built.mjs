// The test command starts the tests once the packages' JavaScript is built, and runs the type
// check and the packages' declarations beside them (scripts/test.sh). What reads the built
// declarations (the pack, the release rehearsal's copy of each package's `dist`) waits for them
// here: the test command names the file their build writes its exit status to when it ends
// (`DTASK_TYPES_DONE`) and the process building them (`DTASK_TYPES_PID`). Run alone, with neither
// set, the declarations are taken as built (`bash scripts/setup.sh build` built them).
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/** Whether process `pid` is still running. */
function running(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * Resolves once the declarations are built; throws, saying why, when their build failed or
 * ended without writing its status. No time limit: the type check's time depends on the load.
 */
export async function declarationsBuilt() {
  const done = process.env.DTASK_TYPES_DONE;
  if (!done) return;
  const pid = Number(process.env.DTASK_TYPES_PID);
  while (!existsSync(done)) {
    if (pid > 0 && !running(pid) && !existsSync(done)) {
      throw new Error('the type check and declarations ended without an exit status (killed?)');
    }
    await sleep(500);
  }
  const status = readFileSync(done, 'utf8').trim();
  if (status !== '0') {
    throw new Error(
      `the declarations were not built: the type check or their build exited ${status} (its output is under its own header)`,
    );
  }
}
