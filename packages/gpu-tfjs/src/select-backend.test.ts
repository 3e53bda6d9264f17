import { ArgumentError, UnsupportedError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { selectBackend } from './select-backend.js';

describe('selectBackend', () => {
  it('picks the best backend that loads and says why better ones were not taken', async () => {
    const choice = await selectBackend();
    expect(['tensorflow', 'webgl', 'wasm', 'cpu']).toContain(choice.backend);
    expect(choice.tf.getBackend()).toBe(choice.backend);
    if (choice.backend !== 'tensorflow') {
      expect(
        choice.skipped.some((s) => s.startsWith('tensorflow via @tensorflow/tfjs-node-gpu')),
      ).toBe(true);
    }
    if (choice.backend === 'wasm' || choice.backend === 'cpu') {
      expect(choice.gpu).toBe(false);
      // Without DISPLAY (the test command), webgl says why: no X display.
      expect(choice.skipped.some((s) => s.startsWith('webgl via headless-gl: '))).toBe(true);
    }
    const c = choice.tf.matMul(choice.tf.tensor2d([1, 2, 3, 4], [2, 2]), choice.tf.eye(2));
    // Within float32 rounding: webgl (under a display) computes on the GPU's float path.
    const got = Array.from(await c.data());
    for (const [i, v] of [1, 2, 3, 4].entries()) expect(got[i]).toBeCloseTo(v, 5);
  });

  it('uses the cpu backend when asked, and it is never a GPU', async () => {
    const choice = await selectBackend('cpu');
    expect(choice).toMatchObject({ backend: 'cpu', gpu: false, module: '@tensorflow/tfjs' });
    expect(choice.tf.getBackend()).toBe('cpu');
  });

  it('uses the wasm backend when asked', async () => {
    const choice = await selectBackend('wasm');
    expect(choice).toMatchObject({ backend: 'wasm', gpu: false });
    expect(Array.from(await choice.tf.add(choice.tf.tensor1d([1, 2]), 1).data())).toEqual([2, 3]);
  });

  it('throws UnsupportedError for a requested backend that cannot load, ArgumentError for an unknown one', async () => {
    const isTfjsNodeInstalled = await import('@tensorflow/tfjs-node' as string).then(
      () => true,
      () => false,
    );
    if (isTfjsNodeInstalled)
      console.log('skip: @tensorflow/tfjs-node is installed, so tensorflow loads');
    else await expect(selectBackend('tensorflow')).rejects.toSatisfy(UnsupportedError.isInstance);
    await expect(selectBackend('metal' as never)).rejects.toSatisfy(ArgumentError.isInstance);
  });
});
