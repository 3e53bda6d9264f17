// The webgl backend in Node: TensorFlow.js's WebGL kernels on a headless-gl context, under an X
// server (the DISPLAY set, or an Xvfb the fixture starts). Here the GL is Mesa's llvmpipe, a
// software rasteriser, so the processor must say it is not a GPU. Skips, saying why, without an
// X server or a built `gl`.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Context, scope } from '@dtask/core';
import { afterAll, describe, expect, it } from 'vitest';
import { xDisplay } from '../../gpujs/src/__fixtures__/x-display.js';
import { tfjs } from './index.js';

const noDisplay = await xDisplay();
// Not loaded here: headless-gl loads in one thread per process, and the TfjsProc's must.
const noGl = (() => {
  try {
    const dir = dirname(createRequire(import.meta.url).resolve('gl/package.json'));
    if (existsSync(join(dir, 'build/Release/webgl.node'))) return null;
    return 'the gl package is not built (scripts/test-deps.sh builds it)';
  } catch {
    return 'the gl package is not installed';
  }
})();
const skip = noDisplay ?? noGl;
if (skip) console.log(`webgl backend tests skipped: ${skip}`);

describe.skipIf(skip !== null)('tfjs({ backend: "webgl" }) on headless-gl', () => {
  const plugin = tfjs({ backend: 'webgl' });
  const ctx = new Context({ plugins: [plugin] });
  afterAll(() => ctx.close());

  it('runs tf ops on the TfjsProc with WebGL kernels, results as on the CPU, never called a GPU', async () => {
    await ctx.ready();
    const line = plugin.describe().split('\n')[0];
    expect(line).toMatch(/^tfjs backend: webgl from headless-gl \(.+\) \(/);
    if (/llvmpipe|software/.test(line)) expect(line).toMatch(/emulated on the CPU, not a GPU/);
    const n = 64;
    const a = Float32Array.from({ length: n * n }, (_, k) => ((k * 7) % 13) / 13);
    const [backend, c] = (await ctx.spawn(
      { scope: scope({ gpu: 0 }) },
      (x: any, m: number) => {
        const tf = (globalThis as any).tf;
        return [tf.getBackend(), tf.matMul(x.reshape([m, m]), x.reshape([m, m])).dataSync()];
      },
      a,
      n,
    )) as [string, Float32Array];
    expect(backend).toBe('webgl');
    let worst = 0;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let k = 0; k < n; k++) s += a[i * n + k] * a[k * n + j];
        worst = Math.max(worst, Math.abs(c[i * n + j] - s) / (1 + Math.abs(s)));
      }
    }
    expect(worst).toBeLessThan(1e-4);
  });
});
