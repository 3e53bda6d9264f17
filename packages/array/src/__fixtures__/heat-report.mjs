// The array README's heat-diffusion example, as a program: a hot square in a cold plate,
// 40 explicit Euler steps of the heat equation on 2 worker threads (Wrap edges), the run's
// logs drawn in the HTML report. Prints { before, after, max, report } as JSON.
//   node heat-report.mjs <report.html>
import { AutoBlocks, DArray, stencil, stencilSteps, Wrap } from '@dtask/array';
import { Context, disableLogging, enableLogging, fetchLogs } from '@dtask/core';
import { threads } from '@dtask/threads';
import { writeReport } from '@dtask/viz';

const out = process.argv[2] ?? 'heat.html';
const context = new Context({ plugins: [threads({ count: 2 })] });
await context.ready();
try {
  const n = 512;
  // A hot square (1.0) in the middle of a cold plate (0.0), blocks chosen for 2 threads.
  const T = DArray.zeros([n, n], new AutoBlocks(), { context });
  const hot = stencil({ T }, (_at, idx) =>
    Math.abs(idx[0] - 256) < 32 && Math.abs(idx[1] - 256) < 32 ? 1 : 0,
  );
  const U = stencil({ T: hot }, (at) => at.T(0, 0)); // a second buffer, blocked alike
  const before = await hot.sum();

  enableLogging();
  const laplace = (at) =>
    at.A(0, 0) + 0.2 * (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1) - 4 * at.A(0, 0));
  const steps = [];
  for (let s = 0; s < 20; s++) {
    steps.push({ out: 'B', kernel: laplace }, { out: 'A', kernel: (at) => at.B(0, 0) });
  }
  await stencilSteps({ A: hot, B: U }, steps, { boundary: new Wrap() });
  disableLogging();
  await writeReport(fetchLogs(), out, { title: 'heat diffusion: 512×512, 40 steps, 2 threads' });

  const after = await hot.sum(); // Wrap edges: no heat leaves the plate
  console.log(JSON.stringify({ before, after, max: await hot.max(), report: out }));
} finally {
  await context.close();
}
