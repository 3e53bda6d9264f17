import { ThreadProc } from '../processor/thread-proc.js';

/**
 * The calling thread's own `ThreadProc` as a context registers it. It equals any
 * `ThreadProc` with the same worker and thread, but leaves the default scope once the
 * context has worker threads (it then runs only what names it, and functions that cannot
 * travel).
 */
export class LocalThreadProc extends ThreadProc {
  /** Set by the context: false once other default-enabled threads exist. */
  enabledByDefault = true;

  override get defaultEnabled(): boolean {
    return this.enabledByDefault;
  }
}
