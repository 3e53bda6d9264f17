// The transfer option across processes: the bytes are copied over the socket (memory cannot move
// between processes), and the caller gives its buffers up all the same, as to a thread, so a
// program behaves alike on threads and processes.
import { scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { clusterRig } from './__fixtures__/rig.js';

describe('cluster: the transfer option', () => {
  it('copies the listed buffers to a worker process; the caller gives its own up as with a thread', async () => {
    await using r = await clusterRig();
    const [w] = r.plugin.processWorkers();
    const bytes = new Uint8Array(1 << 20).fill(9);
    const seen = await r.ctx.spawn(
      { scope: scope({ worker: w!.worker }), transfer: [bytes.buffer] },
      (b: Uint8Array) => [b.length, b[0], process.pid],
      bytes,
    );
    expect(seen.slice(0, 2)).toEqual([1 << 20, 9]);
    expect(seen[2]).not.toBe(process.pid);
    expect(bytes.byteLength).toBe(0);
  });
});
