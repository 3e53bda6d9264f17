// The `dtask` global for TypeScript, in the workspace's own type-check (the built declarations
// get the same declaration from tsup.config.ts's dts footer).
declare global {
  /**
   * The `@dtask/core` API as a global, set on every processor a task may run on (worker threads,
   * worker processes, and the main thread once `@dtask/core` is loaded): what a task function
   * sent as source text uses, e.g. `spawn(() => dtask.taskProcessor().id)`.
   */
  var dtask: typeof import('./index.js');
}

export {};
