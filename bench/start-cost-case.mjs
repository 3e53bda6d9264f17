// One measurement of bench/start-cost.mjs, run in a fresh Node process:
//   node bench/start-cost-case.mjs <root> <case> [workers]
// `import-core`, `import-worker`: imports @dtask/core (its index, or its worker entry) of the
// built checkout at <root> and prints this process's CPU since it started (ms). `cluster`:
// starts that many local cluster worker processes, runs one task on each, and prints their CPU
// (ms per worker process: all of it, and its main thread's) once the tasks are back. `threads`:
// starts that many worker threads (`threads({ count })`), runs one task on each, and prints the
// CPU of the threads this process gained (ms per worker thread) and of the whole process.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [root, which, workersText] = process.argv.slice(2);
const url = (pkg, file = 'index.js') =>
  pathToFileURL(join(root, 'packages', pkg, 'dist', file)).href;

/** CPU of one thread of a process, from /proc (ms; USER_HZ 100). */
function threadMs(pid, tid) {
  const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

if (which === 'import-core' || which === 'import-worker') {
  await import(url('core', which === 'import-core' ? 'index.js' : 'worker.js'));
  const c = process.cpuUsage();
  console.log(JSON.stringify({ cpuMs: (c.user + c.system) / 1000 }));
} else if (which === 'threads') {
  const core = await import(url('core'));
  const { threads } = await import(url('threads'));
  const { threadCpu } = await import('./fixtures/thread-cpu.mjs');
  const count = Number(workersText ?? 8);
  const before = threadCpu();
  const plugin = threads({ count });
  const ctx = core.configure({ plugins: [plugin] });
  await ctx.ready();
  const at = (thread) => ({ scope: core.scope({ worker: 1, thread }) });
  const ids = Array.from({ length: count }, (_, i) => i + 2);
  await core.fetchAll(ids.map((thread) => ctx.spawn(at(thread), (x) => x + 1, thread)));
  let added = 0;
  for (const [tid, ns] of threadCpu()) if (!before.has(tid)) added += ns / 1e6;
  const c = process.cpuUsage();
  await core.shutdown();
  console.log(JSON.stringify({ cpuMs: added / count, processMs: (c.user + c.system) / 1000 }));
} else if (which === 'cluster') {
  const core = await import(url('core'));
  const { cluster } = await import(url('cluster'));
  const workers = Number(workersText ?? 8);
  const plugin = cluster({ workers, startTimeoutMs: 120_000 });
  const ctx = core.configure({ plugins: [plugin] });
  await ctx.ready();
  const ids = plugin.processWorkers().map((w) => w.worker);
  const at = (worker) => ({ scope: core.scope({ worker }) });
  await core.fetchAll(ids.map((id) => ctx.spawn(at(id), (x) => x + 1, id)));
  let all = 0;
  let main = 0;
  for (const w of plugin.processWorkers()) {
    const pid = w.child.pid;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const ms = threadMs(pid, tid);
      all += ms;
      if (tid === String(pid)) main += ms;
    }
  }
  await core.shutdown();
  console.log(JSON.stringify({ cpuMs: all / workers, mainMs: main / workers }));
} else {
  console.error(`unknown case ${which}`);
  process.exit(2);
}
