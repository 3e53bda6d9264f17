// An `everywhere` module for serveWorker's test: counts how many times it was evaluated and
// names itself, so the test sees that the worker loaded it before serving.
globalThis.dtaskServeMarks = (globalThis.dtaskServeMarks ?? 0) + 1;
export const served = 'serve-mark';
