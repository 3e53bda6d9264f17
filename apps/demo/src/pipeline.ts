// The demo's feature-extraction pipeline: each generated input (a seeded grey image) is made,
// blurred and reduced to features (mean, contrast, edge energy) in its own chain of three
// tasks; the functions are self-contained so they travel to the worker threads as source.
import type { Context, DTask } from '@dtask/core';

/** Features of one image. */
export interface ImageFeatures {
  /** The input's index (its seed). */
  index: number;
  /** Mean brightness, 0..1. */
  mean: number;
  /** Standard deviation of brightness. */
  contrast: number;
  /** Mean squared Sobel gradient. */
  edges: number;
}

/** Result of the pipeline. */
export interface PipelineResult {
  /** Features of every input, in input order. */
  features: ImageFeatures[];
  /** Tasks spawned (three per input). */
  tasks: number;
}

/** Makes a side×side image from a seed: a gradient, a disc and noise (xorshift). */
export function makeImage(seed: number, side: number): Float32Array {
  const img = new Float32Array(side * side);
  let s = (seed * 2654435761) >>> 0 || 1;
  const cx = (seed * 7) % side;
  const cy = (seed * 13) % side;
  const r2 = (side / 4) ** 2;
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
      const noise = ((s >>> 0) / 4294967296 - 0.5) * 0.2;
      const disc = (x - cx) ** 2 + (y - cy) ** 2 < r2 ? 0.5 : 0;
      img[y * side + x] = Math.min(1, Math.max(0, (x / side) * 0.4 + disc + noise));
    }
  }
  return img;
}

/** A 3×3 box blur (edges clamped). */
export function blur(img: Float32Array, side: number): Float32Array {
  const out = new Float32Array(img.length);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      let sum = 0;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const yy = Math.min(side - 1, Math.max(0, y + dy));
          const xx = Math.min(side - 1, Math.max(0, x + dx));
          sum += img[yy * side + xx] as number;
        }
      }
      out[y * side + x] = sum / 9;
    }
  }
  return out;
}

/** Mean, contrast and Sobel edge energy of an image. */
export function features(img: Float32Array, side: number, index: number): ImageFeatures {
  let sum = 0;
  let sq = 0;
  for (const v of img) {
    sum += v;
    sq += v * v;
  }
  const mean = sum / img.length;
  let edges = 0;
  const at = (x: number, y: number) => img[y * side + x] as number;
  for (let y = 1; y < side - 1; y++) {
    for (let x = 1; x < side - 1; x++) {
      const gx =
        at(x + 1, y - 1) +
        2 * at(x + 1, y) +
        at(x + 1, y + 1) -
        at(x - 1, y - 1) -
        2 * at(x - 1, y) -
        at(x - 1, y + 1);
      const gy =
        at(x - 1, y + 1) +
        2 * at(x, y + 1) +
        at(x + 1, y + 1) -
        at(x - 1, y - 1) -
        2 * at(x, y - 1) -
        at(x + 1, y - 1);
      edges += gx * gx + gy * gy;
    }
  }
  return {
    index,
    mean,
    contrast: Math.sqrt(Math.max(0, sq / img.length - mean * mean)),
    edges: edges / (side - 2) ** 2,
  };
}

/**
 * Runs make → blur → features for `inputs` images of `side`² pixels on `context`; `onTasks`
 * gets every task of the pipeline once spawned (to draw progress).
 */
export async function runPipeline(
  context: Context,
  inputs: number,
  side: number,
  onTasks?: (tasks: DTask<unknown>[]) => void,
): Promise<PipelineResult> {
  const chains: DTask<ImageFeatures>[] = [];
  const all: DTask<unknown>[] = [];
  for (let i = 0; i < inputs; i++) {
    const img = context.spawn({ name: 'make-image' }, makeImage, i, side);
    const smooth = context.spawn({ name: 'blur' }, blur, img, side);
    const feats = context.spawn({ name: 'features' }, features, smooth, side, i);
    chains.push(feats);
    all.push(img, smooth, feats);
  }
  onTasks?.(all);
  return { features: await Promise.all(chains), tasks: inputs * 3 };
}
