// serveWorker over a real admin channel (a MessageChannel) and the in-memory runtime
// transport, with a real context connected through PluginHost.connectWorker.
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { ExactScope, ThreadProc } from '../index.js';
import type { AdminFromWorker, AdminToWorker } from '../protocol/admin-protocol.js';
import { inMemoryTransportPair } from '../protocol/in-memory-transport.js';
import { Context } from '../registry/context.js';
import { serveWorker, type WorkerChannel } from './serve-worker.js';

const MARK = new URL('./__fixtures__/serve-mark.mjs', import.meta.url).href;
const MISSING = new URL('./__fixtures__/no-such-module.mjs', import.meta.url).href;

const open: { ctx: Context; ports: MessagePort[] }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.ctx.close();
    for (const p of o.ports) p.close();
  }
});

/** A context with one processor, `thread:1:2`, whose worker `serveWorker` runs on this thread. */
function served(channel: Partial<WorkerChannel> = {}) {
  const proc = new ThreadProc(1, 2);
  const [mainEnd, workerEnd] = inMemoryTransportPair();
  const ctx = new Context({
    plugins: [
      {
        name: 'served',
        setup(host) {
          const conn = host.connectWorker(mainEnd, {
            processor: proc,
            onLost: () => host.removeProcessor(proc),
          });
          host.addProcessor(proc, conn);
        },
      },
    ],
  });
  const admin = new MessageChannel();
  open.push({ ctx, ports: [admin.port1, admin.port2] });
  const got: AdminFromWorker[] = [];
  const arrived = (op: AdminFromWorker['op']) =>
    new Promise<AdminFromWorker>((resolve, reject) => {
      const end = performance.now() + 10_000;
      const check = () => {
        const m = got.find((x) => x.op === op);
        if (m) resolve(m);
        else if (performance.now() > end) reject(new Error(`no '${op}' from the worker in 10 s`));
        else setTimeout(check, 2);
      };
      check();
    });
  admin.port1.on('message', (m: AdminFromWorker) => {
    got.push(m);
    if (m.op === 'plugins?') admin.port1.postMessage({ op: 'plugins', specs: [] });
  });
  const toWorker = (m: AdminToWorker) => admin.port1.postMessage(m);
  const serving = serveWorker({
    transport: workerEnd,
    start: { worker: 1, thread: 2, modules: [MARK] },
    send: (m) => admin.port2.postMessage(m),
    onAdmin: (listener) => admin.port2.on('message', listener),
    ...channel,
  });
  return { ctx, proc, got, arrived, toWorker, serving };
}

describe('serveWorker', () => {
  it('asks for the plugin specs, loads the everywhere modules, then serves tasks', async () => {
    const before = (globalThis as { dtaskServeMarks?: number }).dtaskServeMarks ?? 0;
    const w = served();
    await w.serving;
    expect(w.got[0]).toEqual({ op: 'plugins?' });
    expect((globalThis as { dtaskServeMarks?: number }).dtaskServeMarks).toBe(before + 1);
    const t = w.ctx.spawn({ scope: new ExactScope(w.proc) }, (x: number) => x * 2, 21);
    expect(await t).toBe(42);
  });

  it('answers load requests, those sent while it starts too: loaded, or loadFailed naming the error', async () => {
    const w = served();
    w.toWorker({ op: 'load', req: 1, url: MARK }); // before the runtime serves: waits for it
    await w.serving;
    w.toWorker({ op: 'load', req: 2, url: MISSING });
    expect(await w.arrived('loaded')).toEqual({ op: 'loaded', req: 1 });
    const failed = await w.arrived('loadFailed');
    expect(failed).toMatchObject({ op: 'loadFailed', req: 2 });
    expect((failed as { error: string }).error).toContain('no-such-module.mjs');
  });

  it('with announceReady, starts heartbeats first, then says ready naming the peers reached', async () => {
    const steps: string[] = [];
    const w = served({
      announceReady: true,
      linkPeers: async () => ({
        reached: ['thread:1:3'],
        serve: () => steps.push('peers served'),
      }),
      heartbeat: async (worker) => {
        steps.push(`heartbeat ${worker}`);
      },
    });
    await w.serving;
    expect(steps).toEqual(['peers served', 'heartbeat 1']);
    expect(await w.arrived('ready')).toEqual({ op: 'ready', peers: ['thread:1:3'] });
  });

  it('given the plugin specs, does not ask for them; a module that fails to load rejects the start', async () => {
    const w = served({
      start: { worker: 1, thread: 2, modules: [MISSING], specs: [] },
    });
    await expect(w.serving).rejects.toThrow(/no-such-module/);
    expect(w.got.some((m) => m.op === 'plugins?')).toBe(false);
  });
});
