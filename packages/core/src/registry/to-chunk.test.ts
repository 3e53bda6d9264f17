import { describe, expect, it } from 'vitest';
import { type Chunk, isChunk } from '../chunk/chunk.js';
import { RamDevice } from '../chunk/ram-device.js';
import type { StorageDevice } from '../chunk/storage-device.js';
import { ArgumentError } from '../errors/errors.js';
import { ThreadProc } from '../processor/thread-proc.js';
import { ExactScope } from '../scope/exact-scope.js';
import { AnyScope } from '../scope/scope.js';
import { scope } from '../scope/scope-builder.js';
import { taskProcessor } from '../task/task-local.js';
import { FakeProcessor, fakeProcessorPlugin } from '../testing/fake-processor.js';
import { Context } from './context.js';
import { mutable } from './mutable.js';
import { spawn } from './spawn.js';
import { toChunk } from './to-chunk.js';

const where = () => taskProcessor().id;

/** `device` with its `put` replaced (the other methods still reach the device itself). */
function withPut(device: RamDevice, put: StorageDevice['put']): StorageDevice {
  return {
    name: device.name,
    put,
    get: (key) => device.get(key),
    delete: (key) => device.delete(key),
  } as StorageDevice;
}

describe('toChunk', () => {
  it('round-trips a value and knows where it lives', async () => {
    const value = { a: [1, 2, 3], b: new Float64Array([0.5]) };
    const c = toChunk(value);
    expect(isChunk(c)).toBe(true);
    expect(await c.fetch()).toEqual(value);
    expect(c.processor.id).toBe(new ThreadProc(1, 1).id);
    expect(c.scope).toEqual(new AnyScope());
    expect(c.bytes).toBeGreaterThan(8);
  });

  it('a chunk argument gives the task its value; meta: true gives the chunk', async () => {
    const c = toChunk(20);
    expect(await spawn((x: number) => x + 1, c)).toBe(21);
    expect(await spawn({ meta: true }, (x: unknown) => isChunk(x), c as never)).toBe(true);
  });

  it('a chunk’s scope constrains where tasks taking it run', async () => {
    const fake = new FakeProcessor({
      worker: 2,
      index: 1,
      defaultEnabled: true,
      compatible: () => true,
    });
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([fake])] });
    const onFake = toChunk(3, fake, scope({ worker: 2 }));
    const onMain = toChunk(4, ctx.localProc, new ExactScope(ctx.localProc));
    for (let i = 0; i < 3; i++) {
      expect(await ctx.spawn((x: number) => [x, where()], onFake)).toEqual([3, fake.id]);
      expect(await ctx.spawn((x: number) => [x, where()], onMain)).toEqual([4, 'thread:1:1']);
    }
  });

  it('picks a storage device by name or object; an unknown name is an ArgumentError', async () => {
    expect(await toChunk('x', undefined, undefined, { device: 'ram' }).fetch()).toBe('x');
    const device = new RamDevice();
    const c = toChunk('y', undefined, undefined, { device });
    expect(device.usage().entries).toBe(1);
    expect(await c.fetch()).toBe('y');
    expect(() => toChunk(1, undefined, undefined, { device: 'no-such-device' })).toThrow(
      /no storage device named 'no-such-device'/,
    );
    expect(() => toChunk(1, undefined, undefined, { device: 'nope' })).toThrow(ArgumentError);
  });

  it('checks its proc and scope arguments', async () => {
    expect(() => toChunk(1, 'thread:1:1' as never)).toThrow(ArgumentError);
    expect(() => toChunk(1, undefined, { worker: 2 } as never)).toThrow(ArgumentError);
  });

  it('returns a Chunk at once, usable inline as a task function (seed 004)', async () => {
    const c = toChunk((x: number, y: number) => x * 2 + y * 3);
    expect(c).not.toBeInstanceOf(Promise);
    expect(isChunk(c)).toBe(true);
    expect(
      await spawn(
        toChunk((x: number, y: number) => x * 2 + y * 3),
        10,
        11,
      ),
    ).toBe(53);
  });

  it('a slow device write completes behind the chunk; tasks and fetch wait for it', async () => {
    const inner = new RamDevice();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = withPut(inner, async (key, value, o) => {
      await gate;
      return inner.put(key, value, o);
    });
    const c = toChunk(7, undefined, undefined, { device: slow });
    const t = spawn((x: number) => x + 1, c);
    const f = c.fetch();
    setTimeout(release, 10);
    expect(await t).toBe(8);
    expect(await f).toBe(7);
  });

  it('a failed device write makes tasks and fetch fail with the device’s error', async () => {
    const broken = withPut(new RamDevice(), async () => {
      await new Promise((r) => setTimeout(r, 5));
      throw new Error('disk full');
    });
    const c = toChunk(7, undefined, undefined, { device: broken });
    await expect(c.fetch()).rejects.toThrow('disk full');
    const e = await spawn((x: number) => x + 1, c).catch((x: unknown) => x);
    expect(String((e as Error).message) + String((e as Error).cause ?? '')).toMatch(/disk full/);
  });

  it('ctx.toChunk and options.context use that context’s storage devices', async () => {
    const device = new RamDevice();
    const named = Object.defineProperty(device, 'name', { value: 'only-here' });
    await using ctx = new Context();
    ctx.addStorageDevice(named);
    expect(() => toChunk(1, undefined, undefined, { device: 'only-here' })).toThrow(ArgumentError);
    const c = ctx.toChunk('v', undefined, undefined, { device: 'only-here' });
    const d = toChunk('w', undefined, undefined, { device: 'only-here', context: ctx });
    expect(device.usage().entries).toBe(2);
    expect(await ctx.spawn((x: string) => `${x}!`, c)).toBe('v!');
    expect(await d.fetch()).toBe('w');
    expect(ctx.toChunk(1).processor).toBe(ctx.localProc);
  });
});

describe('mutable', () => {
  it('returns a chunk at once; tasks that take it wait for it and mutate it in place', async () => {
    let made = false;
    const m = mutable(async () => {
      await new Promise((r) => setTimeout(r, 5));
      made = true;
      return { count: 0, log: [] as string[] };
    });
    expect(isChunk(m)).toBe(true);
    expect(made).toBe(false);
    const first = spawn((s: { count: number; log: string[] }) => {
      s.count++;
      s.log.push('first');
    }, m);
    await first;
    expect(made).toBe(true);
    await spawn((s: { count: number; log: string[] }) => {
      s.count++;
      s.log.push('second');
    }, m);
    expect(await m.fetch()).toEqual({ count: 2, log: ['first', 'second'] });
  });

  it('pins its data to the processor that made it', async () => {
    const fake = new FakeProcessor({ worker: 2, index: 2, compatible: () => true });
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([fake])] });
    const m = ctx.spawn(() => mutable(() => ({ made: where() }), { processor: fake }));
    // The task returns the chunk: `await m` would give its value, the raw fetch the chunk.
    const chunk = (await m.fetch({ raw: true })) as unknown as Chunk<{ made: string }>;
    const users = Array.from({ length: 4 }, () =>
      ctx.spawn((s: { made: string }) => [s.made, where()], chunk),
    );
    for (const u of users) expect(await u).toEqual([fake.id, fake.id]);
    expect(chunk.processor.id).toBe(fake.id);
    expect(chunk.scope).toEqual(new ExactScope(fake));
  });

  it('with a wider place, it is pinned to the one processor that ran it', async () => {
    const [p1, p2] = [1, 2].map(
      (index) => new FakeProcessor({ worker: 3, index, compatible: () => true, delayMs: 5 }),
    );
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([p1, p2])] });
    const maker = ctx.spawn(() => mutable(() => ({ made: where() }), { worker: 3 }));
    const chunk = (await maker.fetch({ raw: true })) as unknown as Chunk<{ made: string }>;
    const users = Array.from({ length: 6 }, () =>
      ctx.spawn((s: { made: string }) => [s.made, where()], chunk),
    );
    const ran = await Promise.all(users);
    const made = ran[0][0];
    expect([p1.id, p2.id]).toContain(made);
    expect(ran.every(([m, w]) => m === made && w === made)).toBe(true);
    expect(chunk.processor.id).toBe(made);
  });

  it('bad arguments are ArgumentErrors', () => {
    expect(() => mutable(5 as never)).toThrow(ArgumentError);
    expect(() => mutable(() => 1, { worker: 0 })).toThrow(ArgumentError);
    expect(() => mutable(() => 1, { processor: {} as never })).toThrow(ArgumentError);
    expect(() => mutable(() => 1, { scope: 'any' as never })).toThrow(ArgumentError);
  });
});
