// spawn({ transfer: [buffer] }, f, ...) moves the listed ArrayBuffers to the worker thread, as
// postMessage's transfer list does: no copy, and the caller's buffer is detached afterwards.
import { ArgumentError, map, scope, WorkerLostError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';

const onThread = (thread: number) => scope({ worker: 1, thread });
declare const dtask: typeof import('@dtask/core');
const MiB = 2 ** 20;

describe('threads: the transfer option', () => {
  it('moves the listed buffers to the worker thread; the caller keeps detached ones', async () => {
    const { ctx } = await rig();
    const bytes = new Uint8Array(8 * MiB).fill(7);
    const other = new Float64Array([1.5, 2.5]);
    const t = ctx.spawn(
      { scope: onThread(2), transfer: [bytes.buffer, other.buffer] },
      (b: Uint8Array, o: Float64Array) => [
        b.length,
        b[b.length - 1],
        o[1],
        dtask.taskProcessor().id,
      ],
      bytes,
      other,
    );
    expect(await t).toEqual([8 * MiB, 7, 2.5, 'thread:1:2']);
    expect(bytes.byteLength).toBe(0);
    expect(bytes.buffer.byteLength).toBe(0);
    expect(other.length).toBe(0);
  });

  it('without it the argument is copied and stays whole', async () => {
    const { ctx } = await rig();
    const bytes = new Uint8Array(1024).fill(1);
    expect(await ctx.spawn({ scope: onThread(2) }, (b: Uint8Array) => b.length, bytes)).toBe(1024);
    expect(bytes.byteLength).toBe(1024);
  });

  it('a task kept on the main thread gets the very buffer, not detached', async () => {
    const { ctx } = await rig();
    const buffer = new ArrayBuffer(16);
    const same = await ctx.spawn(
      { scope: scope({ worker: 1, thread: 1 }), transfer: [buffer] },
      (b: ArrayBuffer) => b,
      buffer,
    );
    expect(same).toBe(buffer);
    expect(buffer.byteLength).toBe(16);
  });

  it('is checked at the call: typed errors that say what to pass', async () => {
    const { ctx } = await rig();
    const f = (x: unknown) => x;
    const view = new Uint8Array(4);
    expect(() => ctx.spawn({ transfer: view as never }, f, view)).toThrow(ArgumentError);
    expect(() => ctx.spawn({ transfer: [view] as never }, f, view)).toThrow(
      /item 0 is .*Uint8Array.*not an ArrayBuffer; list the view's buffer \(Uint8Array.buffer\)/,
    );
    const shared = new SharedArrayBuffer(8);
    expect(() => ctx.spawn({ transfer: [shared] as never }, f, shared)).toThrow(
      /SharedArrayBuffer is shared with the worker as it is/,
    );
    expect(() => ctx.spawn({ transfer: [view.buffer, view.buffer] }, f, view)).toThrow(
      /same ArrayBuffer twice/,
    );
    const gone = new ArrayBuffer(8);
    structuredClone(gone, { transfer: [gone] });
    expect(() => ctx.spawn({ transfer: [gone] }, f, gone)).toThrow(/already moved away \(detached/);
    expect(() => map(f, [1], { transfer: [view.buffer] } as never)).toThrow(
      /transfer option names the buffers of one task/,
    );
  });

  it('a buffer moved by one task: listing it again is an error at the call; sending it fails that task only', async () => {
    const { ctx } = await rig();
    const buffer = new ArrayBuffer(64);
    const length = (b: ArrayBuffer) => b.byteLength;
    const first = ctx.spawn({ scope: onThread(2), transfer: [buffer] }, length, buffer);
    const twin = ctx.spawn({ scope: onThread(2), transfer: [buffer] }, length, buffer);
    const add = ctx.spawn({ scope: onThread(2) }, (a: number, b: number) => a + b, 1, 2);
    // The thread takes one task at a time: the first moves the buffer, so the twin, sent
    // later, finds it detached and fails with a typed error; the thread goes on serving.
    expect(await first).toBe(64);
    await expect(twin).rejects.toThrow(/moved away \(detached\) before the task could be sent/);
    expect(await add).toBe(3);
    expect(() => ctx.spawn({ scope: onThread(2), transfer: [buffer] }, length, buffer)).toThrow(
      /already moved away/,
    );
    // Without transfer, a detached buffer cannot even be copied: the task fails, not the thread.
    const copied = ctx.spawn({ scope: onThread(2) }, length, buffer);
    await expect(copied).rejects.toThrow(/detached|could not be cloned/i);
    expect(await ctx.spawn({ scope: onThread(2) }, () => 5)).toBe(5);
  });

  it('a task whose buffers moved is not re-run when its worker dies', async () => {
    const { ctx } = await rig();
    const buffer = new ArrayBuffer(32);
    const dies = ctx.spawn(
      { scope: onThread(2), transfer: [buffer] },
      (_b: ArrayBuffer) => process.exit(1),
      buffer,
    );
    const error = await dies.catch((e: unknown) => e);
    expect(WorkerLostError.isInstance((error as { cause?: unknown }).cause ?? error)).toBe(true);
    expect(
      String((error as Error).message) + String((error as { cause?: Error }).cause?.message),
    ).toMatch(/transfer option moved there; it is not re-run/);
    expect(await ctx.spawn({ scope: onThread(2) }, () => 6)).toBe(6);
  });
});
