// The pool's own decisions, with the plugin's threads stood in by plain objects: what it logs
// when a retire ends either way. Real threads growing and retiring: threads-elastic.test.ts.
import { disableLogging, enableLogging, fetchLogs } from '@dtask/core';
import type { PluginHost } from '@dtask/core/plugin';
import { afterEach, describe, expect, it } from 'vitest';
import { ElasticPool } from './elastic-pool.js';
import type { ThreadWorker } from './thread-worker.js';

/** A ready, idle thread as the pool sees one. */
function idleThread(thread: number): ThreadWorker {
  return {
    exited: false,
    wasReady: true,
    loading: false,
    proc: { id: `thread:1:${thread}`, worker: 1 },
  } as unknown as ThreadWorker;
}

/** A pool of two idle threads above `min: 1`, whose retire ends as `retire` says. */
function poolRetiring(retire: () => Promise<{ moved: number }>): () => void {
  let loadChanged = (): void => {};
  const host = {
    context: { isClosed: false },
    onLoadChange: (f: () => void) => {
      loadChanged = f;
    },
    processorLoad: () => ({ inFlight: 0, parked: 0 }),
  } as unknown as PluginHost;
  const threads = [idleThread(2), idleThread(3)];
  const pool = new ElasticPool({
    host,
    min: 1,
    max: 2,
    idleTimeoutMs: 5,
    threads: () => threads,
    size: () => threads.length,
    grow: () => {
      throw new Error('not under load: the pool must not grow');
    },
    retire: (w) => {
      (w as { exited: boolean }).exited = true;
      return retire();
    },
  });
  loadChanged();
  return () => pool.close();
}

/** The `thread-retire` events logged within `ms`. */
async function retiresWithin(ms: number): Promise<string[]> {
  await new Promise((r) => setTimeout(r, ms));
  return fetchLogs()
    .filter((e) => e.kind === 'thread-retire')
    .map((e) => String(e.detail));
}

describe('ElasticPool', () => {
  afterEach(() => disableLogging());

  it('logs a finished retire with the results it brought home', async () => {
    enableLogging();
    fetchLogs();
    const close = poolRetiring(async () => ({ moved: 2 }));
    const details = await retiresWithin(100);
    close();
    expect(details).toHaveLength(1);
    expect(details[0]).toMatch(/^idle \d+ ms; 2 result\(s\) brought home$/);
  });

  it('logs a retire cut short by the thread dying, saying so', async () => {
    enableLogging();
    fetchLogs();
    const close = poolRetiring(() => Promise.reject(new Error('thread:1:2 exited with code 1')));
    const details = await retiresWithin(100);
    close();
    expect(details).toHaveLength(1);
    expect(details[0]).toMatch(/^idle \d+ ms; cut short: Error: thread:1:2 exited with code 1$/);
  });
});
