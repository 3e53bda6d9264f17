// numpy beside dtask (bench/array.mjs, bench/datadeps.mjs): the same matrix product, Cholesky,
// QR or LU-based solve timed by numpy (its BLAS on all cores) in a child python3, so that a table can
// print dtask's GFLOP/s as a share of numpy's measured in the same run.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * numpy's median of `rounds` runs of `op` ('matmul', 'cholesky', 'qr' or 'solve') on an `n × n` matrix of
 * `dtype`: `{ ms, gflops, numpy }`, or `{ skipped }` saying why there is no figure (no python3
 * importing numpy: `$DTASK_BENCH_PYTHON` names another interpreter).
 */
export function numpyPeer(op, n, dtype, rounds) {
  const script = join(here, 'fixtures', 'numpy_peer.py');
  const params = JSON.stringify({ op, n, dtype, rounds });
  let last = 'no python3 found';
  for (const py of [process.env.DTASK_BENCH_PYTHON, 'python3', '/usr/bin/python3']) {
    if (!py) continue;
    const r = spawnSync(py, [script, params], { encoding: 'utf8', timeout: 600_000 });
    if (r.status === 0) return JSON.parse(r.stdout.trim().split('\n').pop());
    last = r.error ? String(r.error) : (r.stderr || '').trim().split('\n').pop();
  }
  return { skipped: `numpy unavailable (${last}); pip install numpy or set DTASK_BENCH_PYTHON` };
}

/** `dtask`'s GFLOP/s as a share of numpy's, for a table cell: '4.1%' or the reason it has none. */
export function shareOf(gflops, peer) {
  return peer.gflops ? `${((100 * gflops) / peer.gflops).toFixed(1)}%` : 'n/a';
}
