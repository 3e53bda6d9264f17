// Preloaded (`--import`) into a worker process by cluster-logs.test.ts: this process's clocks
// run 5 s ahead of every other process's, as a machine with a wrong clock would. Only this
// process is affected; the scheduler's must correct for it.
const SKEW_MS = 5000;
const performanceNow = performance.now.bind(performance);
performance.now = () => performanceNow() + SKEW_MS;
const dateNow = Date.now;
Date.now = () => dateNow() + SKEW_MS;
