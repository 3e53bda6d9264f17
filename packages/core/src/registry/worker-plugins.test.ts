import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PluginSpec } from '../protocol/plugin-spec.js';
import type { Plugin, WorkerPluginHost } from './plugin.js';
import { setupWorkerPlugins, workerPluginSpecs } from './worker-plugins.js';

const spec = (module: string, extra: Partial<PluginSpec> = {}): PluginSpec => ({
  module,
  factory: 'make',
  options: { where: 'thread' },
  ...extra,
});

describe('workerPluginSpecs', () => {
  const withWorkerSide = (name: string, s?: PluginSpec): Plugin => ({
    name,
    spec: s,
    setupWorker: () => {},
  });

  it('lists the specs of plugins with a worker side, in order', () => {
    const plugins: Plugin[] = [
      withWorkerSide('a', spec('a')),
      { name: 'b', spec: spec('b') }, // no worker side
      withWorkerSide('c'), // no spec: never re-created
      withWorkerSide('d', spec('d')),
    ];
    expect(workerPluginSpecs(plugins).map((s) => s.module)).toEqual(['a', 'd']);
  });

  it("gives another process a spec's processOptions in place of its options", () => {
    const s = spec('a', { processOptions: { where: 'process' } });
    const [forThread] = workerPluginSpecs([withWorkerSide('a', s)]);
    const [forProcess] = workerPluginSpecs([withWorkerSide('a', s)], true);
    expect(forThread.options).toEqual({ where: 'thread' });
    expect(forProcess).toEqual({ module: 'a', factory: 'make', options: { where: 'process' } });
  });
});

describe('setupWorkerPlugins', () => {
  afterEach(() => vi.restoreAllMocks());

  it('re-creates each plugin with its options, runs its worker side where it is, and returns the store set', async () => {
    const seen: [unknown, WorkerPluginHost][] = [];
    const store = new Map<number, unknown>();
    const modules: Record<string, Record<string, unknown>> = {
      one: {
        make: (options: unknown): Plugin => ({
          name: 'one',
          setupWorker: (host) => {
            seen.push([options, host]);
            host.setLocalStore(store);
          },
        }),
      },
    };
    const got = await setupWorkerPlugins(
      [spec('one')],
      { worker: 3, thread: 512, processor: 'tfjs:3:0' },
      async (m) => modules[m],
    );
    expect(got).toBe(store);
    expect(seen).toHaveLength(1);
    expect(seen[0][0]).toEqual({ where: 'thread' });
    expect(seen[0][1]).toMatchObject({ worker: 3, thread: 512, processor: 'tfjs:3:0' });
  });

  it('skips a plugin that cannot be set up, with a warning naming it and where, and sets up the rest', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    let ranSecond = false;
    const modules: Record<string, Record<string, unknown>> = {
      broken: {
        make: (): Plugin => ({
          name: 'broken',
          setupWorker: () => {
            throw new Error('no disk here');
          },
        }),
      },
      fine: { make: (): Plugin => ({ name: 'fine', setupWorker: () => void (ranSecond = true) }) },
    };
    const got = await setupWorkerPlugins(
      [spec('broken'), spec('missing-factory', { factory: 'nope' }), spec('fine')],
      { worker: 1, thread: 2 },
      async (m) => modules[m] ?? {},
    );
    expect(got).toBeUndefined();
    expect(ranSecond).toBe(true);
    const messages = warn.mock.calls.map(([m]) => String(m));
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(
      /plugin broken could not be set up in thread 1:2: Error: no disk here/,
    );
    expect(messages[1]).toMatch(
      /plugin missing-factory could not be set up in thread 1:2: .*no factory 'nope'/,
    );
  });
});
