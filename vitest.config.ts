import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import {
  builtExternal,
  coreBuiltOthersSources,
  ownSourcesOthersBuilt,
  sourceAliases,
} from './vitest.resolution.js';

/**
 * Test files that share their process with each other (`isolate: false`): starting a fork and
 * importing the sources again costs about 0.4 s of CPU a file, more than most of these files'
 * tests. Only files that leave nothing behind qualify: they start no process, and threads only
 * in contexts of their own that they close (the threads, datadeps and gpu-tfjs tests' rigs close
 * theirs when their test ends, the shared ones after their describe: hooks registered per call,
 * since a fixture module is evaluated once per process and its top-level hooks would serve only
 * the first file), do not shut down or configure the default context (a later file's `spawn`
 * would meet it), load no module on every worker nor headless-gl (once per process), register no scope key or error class, switch
 * no logging on, set no `globalThis` mark (but the `dtask` global core itself sets) or process
 * listener, and expect nothing of a fresh process (task numbers from 1). Files that start
 * processes share the `alongside` project's processes; the rest keep a process of their own
 * (docs/performance.md: what broke when every file shared). Core's files run in `shared-core`
 * (core from its sources), the others in `shared` (core as built: one copy of core in a
 * process either way). A file added here is checked in several shuffled orders:
 * `vitest run --project shared --project shared-core --sequence.shuffle.files --sequence.seed=N`.
 */
const sharedProcess = [
  'apps/demo/src/array-step.test.ts',
  'apps/demo/src/cholesky-step.test.ts',
  'apps/demo/src/counter-step.test.ts',
  'apps/demo/src/flags.test.ts',
  'apps/demo/src/gpu-step.test.ts',
  'apps/demo/src/kernel-step.test.ts',
  'apps/demo/src/pipeline.test.ts',
  'apps/demo/src/spill-step.test.ts',
  'packages/array/src/cholesky-tiles.test.ts',
  'packages/cluster/src/scheduler/local-wake.test.ts',
  'packages/cluster/src/scheduler/unlinked-pairs.test.ts',
  'packages/cluster/src/wire/dial-peer.test.ts',
  'packages/cluster/src/wire/frames.test.ts',
  'packages/cluster/src/wire/link-transport.test.ts',
  'packages/cluster/src/wire/link.test.ts',
  'packages/cluster/src/wire/message-codec.test.ts',
  'packages/cluster/src/wire/peer-links.test.ts',
  'packages/cluster/src/wire/sync-answers.test.ts',
  'packages/core/src/chunk/device-value-store.test.ts',
  'packages/core/src/chunk/freeing.test.ts',
  'packages/core/src/chunk/ram-device.test.ts',
  'packages/core/src/chunk/size-of.test.ts',
  'packages/core/src/errors/built-names.test.ts',
  'packages/core/src/errors/describe-value.test.ts',
  'packages/core/src/errors/serialize-error.test.ts',
  'packages/core/src/host/find-worker-entry.test.ts',
  'packages/core/src/host/worker-exec-argv.test.ts',
  'packages/core/src/log/chrome-trace.test.ts',
  'packages/core/src/log/task-runs.test.ts',
  'packages/core/src/options/check-options.test.ts',
  'packages/core/src/processor/device-proc.test.ts',
  'packages/core/src/processor/os-proc.test.ts',
  'packages/core/src/protocol/batcher.test.ts',
  'packages/core/src/protocol/hand-over.test.ts',
  'packages/core/src/protocol/in-memory-transport.test.ts',
  'packages/core/src/protocol/packs.test.ts',
  'packages/core/src/protocol/plain-options.test.ts',
  'packages/core/src/protocol/port-transport.test.ts',
  'packages/core/src/protocol/sync-answer.test.ts',
  'packages/core/src/registry/global-api.test.ts',
  'packages/core/src/registry/map-results.test.ts',
  'packages/core/src/registry/spawn-batch.test.ts',
  'packages/core/src/registry/spawn.test.ts',
  'packages/core/src/registry/spawn.types.test.ts',
  'packages/core/src/registry/to-chunk.test.ts',
  'packages/core/src/registry/worker-plugins.test.ts',
  'packages/core/src/runtime/local-consumers.test.ts',
  'packages/core/src/runtime/local-placement.test.ts',
  'packages/core/src/runtime/report-batching.test.ts',
  'packages/core/src/runtime/stall-watch.test.ts',
  'packages/core/src/runtime/task-queue.test.ts',
  'packages/core/src/runtime/value-adapter.test.ts',
  'packages/core/src/runtime/worker-task.test.ts',
  'packages/core/src/sched/completion/restore-checkpoint.test.ts',
  'packages/core/src/sched/completion/store-on-device.test.ts',
  'packages/core/src/sched/dispatch/occupancy.test.ts',
  'packages/core/src/sched/dispatch/slot-queue.test.ts',
  'packages/core/src/sched/dispatch/take-in-while-spawning.test.ts',
  'packages/core/src/sched/dynamic/dynamic.test.ts',
  'packages/core/src/sched/dynamic/follow-tasks.test.ts',
  'packages/core/src/sched/dynamic/weak-inputs.test.ts',
  'packages/core/src/sched/executors/worker-connection/box-args.test.ts',
  'packages/core/src/sched/executors/worker-connection/held-results.test.ts',
  'packages/core/src/sched/executors/worker-connection/outgoing-args.test.ts',
  'packages/core/src/sched/executors/worker-connection/worker-connection.test.ts',
  'packages/core/src/sched/executors/worker-connection/worker-ending.test.ts',
  'packages/core/src/sched/faults/lineage.test.ts',
  'packages/core/src/sched/faults/recompute.test.ts',
  'packages/core/src/sched/faults/withdraw-sent-ahead.test.ts',
  'packages/core/src/sched/faults/worker-lost.test.ts',
  'packages/core/src/sched/placement/candidate-slots.test.ts',
  'packages/core/src/sched/placement/cost-model.test.ts',
  'packages/core/src/sched/placement/data-home.test.ts',
  'packages/core/src/sched/placement/host-data.test.ts',
  'packages/core/src/sched/placement/placement.test.ts',
  'packages/core/src/sched/placement/take-pieces.test.ts',
  'packages/core/src/sched/ready/queue-limit.test.ts',
  'packages/core/src/sched/ready/ready-queue.test.ts',
  'packages/core/src/sched/stats/pending-durations.test.ts',
  'packages/core/src/sched/stats/stats.test.ts',
  'packages/core/src/scope/constrain.test.ts',
  'packages/core/src/scope/scope-spec.test.ts',
  'packages/core/src/scope/scope.test.ts',
  'packages/core/src/stream/edge-buffer.test.ts',
  'packages/core/src/stream/pack-values.test.ts',
  'packages/core/src/task/default-option.test.ts',
  'packages/core/src/task/dtask.test.ts',
  'packages/core/src/task/first-completed.test.ts',
  'packages/core/src/task/id-table.test.ts',
  'packages/core/src/task/keep-shapes.test.ts',
  'packages/core/src/task/remote-result.test.ts',
  'packages/core/src/task/task-footprint.test.ts',
  'packages/core/src/task/task-local.test.ts',
  'packages/core/src/task/task-options-registry.test.ts',
  'packages/core/src/testing/local-store-conformance.test.ts',
  'packages/core/src/testing/processor-conformance.test.ts',
  'packages/core/src/testing/storage-conformance.test.ts',
  'packages/core/src/testing/suite-setup.test.ts',
  'packages/core/src/travel/class-travel.test.ts',
  'packages/core/src/travel/free-variables.test.ts',
  'packages/core/src/travel/function-ref.test.ts',
  'packages/core/src/travel/view-form.test.ts',
  'packages/datadeps/src/aliasing.test.ts',
  'packages/datadeps/src/chunk-arguments.test.ts',
  'packages/datadeps/src/copy-in.test.ts',
  'packages/datadeps/src/dependency-tracker.test.ts',
  'packages/datadeps/src/examples/tile-kernels.test.ts',
  'packages/datadeps/src/footprint.test.ts',
  'packages/datadeps/src/made-options.test.ts',
  'packages/datadeps/src/move-in-place.test.ts',
  'packages/datadeps/src/random-regions.test.ts',
  'packages/datadeps/src/run-here.test.ts',
  'packages/datadeps/src/spawn-datadeps.test.ts',
  'packages/datadeps/src/view.test.ts',
  'packages/example-accelerator/src/device-store.test.ts',
  'packages/gpu-tfjs/src/conformance.test.ts',
  'packages/gpu-tfjs/src/mixed-collection.test.ts',
  'packages/gpu-tfjs/src/placement.test.ts',
  'packages/gpu-tfjs/src/select-backend.test.ts',
  'packages/gpu-tfjs/src/streaming.test.ts',
  'packages/gpu-tfjs/src/tensor-store.test.ts',
  'packages/gpujs/src/coexist.test.ts',
  'packages/lmdb/src/lmdb-device.test.ts',
  'packages/lmdb/src/lmdb-options.test.ts',
  'packages/lmdb/src/lmdb-random-dags.test.ts',
  'packages/lmdb/src/spilling-store-conformance.test.ts',
  'packages/lmdb/src/store-directory.test.ts',
  'packages/threads/src/conformance.test.ts',
  'packages/threads/src/threads-basics.test.ts',
  'packages/threads/src/threads-class-instances.test.ts',
  'packages/threads/src/threads-contexts.test.ts',
  'packages/threads/src/threads-copy-messages.test.ts',
  'packages/threads/src/threads-dynamic-import.test.ts',
  'packages/threads/src/threads-dynamic.test.ts',
  'packages/threads/src/threads-meta.test.ts',
  'packages/threads/src/threads-nested-placement.test.ts',
  'packages/threads/src/threads-random-dags.test.ts',
  'packages/threads/src/threads-seed-004.test.ts',
  'packages/threads/src/threads-stats.test.ts',
  'packages/threads/src/threads-streaming.test.ts',
  'packages/threads/src/threads-transfer-option.test.ts',
  'packages/threads/src/threads-transfer.test.ts',
  'packages/viz/src/dashboard.test.ts',
  'packages/viz/src/event-client.test.ts',
  'packages/viz/src/progress.test.ts',
  'packages/viz/src/task-graph.test.ts',
  'vitest.global-setup.test.ts',
  'vitest.setup.test.ts',
];

/**
 * `@dtask/array`'s test files that expect a fresh process: one reads the process's array-buffer
 * bytes (which earlier files' garbage, freed meanwhile, lowers), one loads a module with
 * `everywhere` (every context made afterwards in the process would load it too). They keep a
 * process of their own. (Files that start a worker process of their own read its number from
 * its plugin: numbers are counted per process, and the shared rigs take the first ones.)
 */
const arrayOwnProcess = [
  'packages/array/src/placement.test.ts',
  'packages/array/src/stencil-module.test.ts',
];

/**
 * `@dtask/array`'s other test files share their processes with each other (`isolate: false`):
 * the two rigs of `describeOnRigs` and `rigForTest` are the process's (kept by the project's
 * environment, `rig-environment.ts`, and closed when the process ends), which each file and test
 * leaves as it found them (checked after it); every other context a file starts it closes, it
 * loads modules only into its own contexts' workers and turns off the logging it turns on. A fork
 * of its own cost each file about 1.3 s of CPU more (its start, and importing the sources and
 * compiling the kernels and references again). A file that starts to rely on a fresh process
 * goes in `arrayOwnProcess`; the group is checked in shuffled orders:
 * `vitest run --project array --sequence.shuffle.files --sequence.seed=N`.
 */
const arrayShared = readdirSync(resolve(import.meta.dirname, 'packages/array/src'))
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => `packages/array/src/${name}`)
  .filter((file) => !arrayOwnProcess.includes(file) && !sharedProcess.includes(file));

/**
 * `@dtask/cluster`'s test files that share their processes with each other (`isolate: false`):
 * most of their time is worker processes and child programs starting, and a fork of its own
 * cost each file about 0.4 s of CPU to start and 0.2-0.3 s to import the cluster's sources and
 * vitest again. Each closes every context it starts (`await using`, or its shared rig's
 * `afterAll`) and ends the `dtask-worker` processes and programs it starts; it reads worker ids
 * from the plugin (they are counted per process: a file that names `worker: 2` keeps a fork),
 * leaves the default context alone, and reads neither the process's heap nor its listeners.
 * Only this package's files: one copy of its sources per process. A file added here is checked
 * in shuffled orders:
 * `vitest run --project alongside-cluster --sequence.shuffle.files --sequence.seed=N`.
 */
const clusterShared = [
  'cluster',
  'cluster-bad-bytes',
  'cluster-chaos',
  'cluster-class-instances',
  'cluster-close',
  'cluster-dynamic',
  'cluster-error',
  'cluster-faults',
  'cluster-lockout',
  'cluster-many-workers',
  'cluster-nested',
  'cluster-peer-habits',
  'cluster-peer-links',
  'cluster-plugins',
  'cluster-program',
  'cluster-rebalance',
  'cluster-remote-join',
  'cluster-replace',
  'cluster-restart-budget',
  'cluster-security',
  'cluster-stats',
  'cluster-streaming',
  'cluster-threads',
  'cluster-tls',
  'cluster-transfer-option',
  'cluster-uncopyable',
  'scheduler/temp-folders',
].map((name) => `packages/cluster/src/${name}.test.ts`);

/**
 * Test files of every package that share their processes with each other (`isolate: false`)
 * though they start worker threads, worker processes or child programs (a fork of its own cost
 * each about 0.35 s of CPU to start and to import vitest and the sources again). Each ends or
 * waits for every process it starts and closes every context it starts, turns off the logging it
 * turns on and fetches what it recorded, removes the listeners it adds, and reads worker process
 * numbers (counted per process) from the plugin that started them, task numbers from the task.
 * What no file can undo through the API, the project's set-up file
 * (`vitest.shared-process-setup.ts`) does after each: it forgets the modules loaded with
 * `everywhere` and the default context, as a fresh process has neither. Left in forks of their
 * own (`alone`): files that read what is counted per process (worker numbers in a fixture's
 * expected output, the array-buffer bytes, the workers known to `scope()`, a closure's learned
 * run time, the realm's log), and files that load headless-gl (a process loads it in one thread,
 * once, and each such file keeps its own context on it until the file ends). Named to come
 * between `alone` and `alongside-cluster`: its files
 * wait on threads and processes as theirs do. A file added here is checked in shuffled orders:
 * `vitest run --project alongside --sequence.shuffle.files --sequence.seed=N`.
 */
const alongside = [
  'apps/demo/src/job.test.ts',
  'apps/demo/src/main.test.ts',
  'packages/cluster/src/bin/parse-args.test.ts',
  'packages/cluster/src/conformance.test.ts',
  'packages/cluster/src/launch/kubernetes-launcher.test.ts',
  'packages/cluster/src/launch/slurm-launcher.test.ts',
  'packages/cluster/src/launch/ssh-launcher.test.ts',
  'packages/cluster/src/sim/simulated-cluster.test.ts',
  'packages/cluster/src/wire/prove-when-room.test.ts',
  'packages/cluster/src/worker-exit.test.ts',
  'packages/cluster/src/worker-host-conformance.test.ts',
  'packages/core/src/errors/error-classes.test.ts',
  'packages/core/src/errors/show-thrown.test.ts',
  'packages/core/src/host/dedicated-thread-conformance.test.ts',
  'packages/core/src/host/dedicated-thread.test.ts',
  'packages/core/src/import-order.test.ts',
  'packages/core/src/log/logging-integration.test.ts',
  'packages/core/src/log/process-sampler.test.ts',
  'packages/core/src/registry/context.test.ts',
  'packages/core/src/registry/default-context.test.ts',
  'packages/core/src/registry/global-api.types.test.ts',
  'packages/core/src/registry/map-memory.test.ts',
  'packages/core/src/registry/map-tasks.test.ts',
  'packages/core/src/registry/pending-at-exit.test.ts',
  'packages/core/src/registry/typescript-module.test.ts',
  'packages/core/src/runtime/serve-worker.test.ts',
  'packages/core/src/runtime/worker-runtime.test.ts',
  'packages/core/src/sched/completion/retry-task.test.ts',
  'packages/core/src/sched/dispatch/returned-args.test.ts',
  'packages/core/src/sched/dispatch/send-ahead-ordered.test.ts',
  'packages/core/src/sched/executors/worker-connection/log-relay.test.ts',
  'packages/core/src/scope/scope-specifier.types.test.ts',
  'packages/core/src/stream/spawn-streaming.test.ts',
  'packages/core/src/task/fetch-all.test.ts',
  'packages/core/src/task/new-user-traps.test.ts',
  'packages/core/src/task/task-queue.test.ts',
  'packages/core/src/task/then-queue.test.ts',
  'packages/core/src/testing/fake-processor.test.ts',
  'packages/core/src/travel/function-travel.test.ts',
  'packages/datadeps/src/ascending-ids.test.ts',
  'packages/datadeps/src/cluster-memory.test.ts',
  'packages/datadeps/src/examples/examples.test.ts',
  'packages/datadeps/src/in-place-loss.test.ts',
  'packages/datadeps/src/moved-data.test.ts',
  'packages/datadeps/src/worker-held-data.test.ts',
  'packages/datadeps/src/worker-held-views.test.ts',
  'packages/datadeps/src/written-task-args.test.ts',
  'packages/example-accelerator/src/accelerator.test.ts',
  'packages/example-accelerator/src/lifecycle.test.ts',
  'packages/example-accelerator/src/worker-host-conformance.test.ts',
  'packages/gpu-tfjs/src/lifecycle.test.ts',
  'packages/gpu-tfjs/src/spilling.test.ts',
  'packages/gpu-tfjs/src/tfjs-plugin.test.ts',
  'packages/gpu-tfjs/src/worker-host-conformance.test.ts',
  'packages/gpujs/src/worker-host-conformance.test.ts',
  'packages/lmdb/src/disk-full.test.ts',
  'packages/lmdb/src/held-values.test.ts',
  'packages/lmdb/src/lmdb-plugin.test.ts',
  'packages/lmdb/src/read-only-disk.test.ts',
  'packages/lmdb/src/spilling-store.test.ts',
  'packages/shard/src/shard-processes.test.ts',
  'packages/shard/src/shard.test.ts',
  'packages/threads/src/elastic-pool.test.ts',
  'packages/threads/src/threads-close.test.ts',
  'packages/threads/src/threads-elastic.test.ts',
  'packages/threads/src/threads-exit.test.ts',
  'packages/threads/src/threads-faults.test.ts',
  'packages/threads/src/threads-lifecycle.test.ts',
  'packages/threads/src/threads-lineage.test.ts',
  'packages/threads/src/threads-local-closure.test.ts',
  'packages/threads/src/threads-logs.test.ts',
  'packages/threads/src/threads-mutable.test.ts',
  'packages/threads/src/threads-peer-habits.test.ts',
  'packages/threads/src/threads-promise-hooks.test.ts',
  'packages/threads/src/threads-reconfigure.test.ts',
  'packages/threads/src/threads-retries.test.ts',
  'packages/threads/src/threads-stream-exit.test.ts',
  'packages/threads/src/threads-stream-local-edges.test.ts',
  'packages/threads/src/threads-stream-memory.test.ts',
  'packages/threads/src/threads-stream-peer-edges.test.ts',
  'packages/threads/src/threads-uncopyable.test.ts',
  'packages/threads/src/threads-user-programs.test.ts',
  'packages/threads/src/worker-host-conformance.test.ts',
  'packages/viz/src/browser-live.test.ts',
  'packages/viz/src/browser.test.ts',
  'packages/viz/src/chain-picture.test.ts',
  'packages/viz/src/dashboard-slow-readers.test.ts',
  'packages/viz/src/write-report.test.ts',
];

/** Every test file. */
const testFiles = ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts'];

/**
 * What the projects whose processes each run one package's files set (`ownSourcesOthersBuilt`):
 * their own package from its sources, the other packages as built.
 */
const othersBuilt = {
  plugins: [ownSourcesOthersBuilt()],
  test: { server: { deps: { external: builtExternal } } },
};

/**
 * What the shared projects of several packages' files but core's set (`coreBuiltOthersSources`):
 * core as built, every other package from its sources (one copy of each in a process).
 */
const coreBuilt = {
  plugins: [coreBuiltOthersSources()],
  test: { server: { deps: { external: builtExternal } } },
};

/**
 * Core's test files that import none of core's sources, only the built packages' files (which
 * node imports itself where `builtExternal` applies, in milliseconds, where vite transformed
 * every bundle first: about 4 s of CPU in vitest's own process): they share the other
 * packages' processes.
 */
const coreFilesOnBuilt = ['packages/core/src/errors/built-names.test.ts'];

/** True for `@dtask/core`'s test files that load its sources: their processes load no other copy. */
const isCoreFile = (file: string): boolean =>
  file.startsWith('packages/core/') && !coreFilesOnBuilt.includes(file);

export default defineConfig({
  test: {
    // vitest hands out the projects' files in the order of the projects' names (its own order
    // within each): the files in processes of their own (`alone`) and those that share them
    // while they wait on threads and processes (`alongside`, `alongside-cluster`) first, then
    // `@dtask/array`'s, then the small shared unit tests (`shared`, `shared-core`). Many of the first files wait (on worker
    // processes, sockets, timers, heartbeats) and leave a core idle, which the test command's
    // checks, running beside the tests at a lower priority (`scripts/test.sh`), fill; the array
    // files keep both cores busy, so they come once the checks are done; the shared files fill
    // the gaps at the end. A project's files stay together: vitest keeps a shared worker
    // (`isolate: false`) for the next file only when it is of the same project.
    projects: [
      {
        extends: true,
        plugins: othersBuilt.plugins,
        test: {
          ...othersBuilt.test,
          name: 'alone',
          include: testFiles,
          exclude: [
            ...configDefaults.exclude,
            ...sharedProcess,
            ...arrayShared,
            ...clusterShared,
            ...alongside,
          ],
        },
      },
      // Files of every package that start threads and processes: every package from its sources.
      {
        extends: true,
        resolve: { alias: sourceAliases() },
        test: {
          name: 'alongside',
          include: alongside,
          isolate: false,
          setupFiles: ['./vitest.shared-process-setup.ts'],
        },
      },
      // Named to come between `alone` and `array`: its files wait on processes as theirs do.
      {
        extends: true,
        plugins: othersBuilt.plugins,
        test: {
          ...othersBuilt.test,
          name: 'alongside-cluster',
          include: clusterShared,
          isolate: false,
        },
      },
      // Files of every package but core share these processes: core as built.
      {
        extends: true,
        plugins: coreBuilt.plugins,
        test: {
          ...coreBuilt.test,
          name: 'shared',
          include: sharedProcess.filter((file) => !isCoreFile(file)),
          isolate: false,
        },
      },
      // Core's files share these: core from its sources.
      {
        extends: true,
        resolve: { alias: sourceAliases() },
        test: { name: 'shared-core', include: sharedProcess.filter(isCoreFile), isolate: false },
      },
      {
        extends: true,
        plugins: othersBuilt.plugins,
        test: {
          ...othersBuilt.test,
          name: 'array',
          include: arrayShared,
          isolate: false,
          // Keeps the rigs of `describeOnRigs` (2 worker threads, 2 worker processes) for every
          // file in the process, closed when it ends (about 0.7 s of CPU a file to start and close).
          environment: './packages/array/src/__fixtures__/rig-environment.ts',
        },
      },
    ],
    // Stops the run when a package's dist/ is older than its sources.
    globalSetup: ['./vitest.global-setup.ts'],
    // Deep equality of typed arrays in a plain loop (vitest's takes seconds on large ones).
    setupFiles: ['./vitest.setup.ts'],
    // Lets freeing tests force garbage collection (FinalizationRegistry backstops).
    execArgv: ['--expose-gc'],
    // Three test files at a time on 2 cores (vitest's default there is one): many tests wait on
    // worker processes, sockets and timers, which the other files' work fills.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    // A hang's bound, not a speed check: under load here (load average 40) some tests of real
    // worker processes and large arrays take 20–27 s, and the CI machine is slower than this one.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // A failed test is tried once more before it fails the run: many tests race real worker
    // processes, sockets and timers on a loaded machine. A test that passes only on its second try
    // is named at the end of the test command's output (`vitest.summary-reporter.ts`), so it is
    // seen and fixed, not hidden.
    retry: 1,
    reporters: process.env.DTASK_TEST_SUMMARY
      ? ['default', './vitest.summary-reporter.ts']
      : ['default'],
  },
});
