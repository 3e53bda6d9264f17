import { ArgumentError } from '@dtask/core';
import { checkOptions, describeValue } from '@dtask/core/plugin';

/** The gpu.js kernel settings `kernel()` accepts (a subset of gpu.js's, all plain data). */
export interface KernelSettings {
  /** Output size: `[x]`, `[x, y]` or `[x, y, z]` threads (positive integers). */
  output: number[];
  /**
   * Leave the output on the device as a texture (gpu.js pipeline mode) for the next kernel on
   * the same processor; it becomes a `Float32Array` only when fetched or moved to a thread.
   * In the `cpu` and `webasm` modes there is no texture and the output is a typed array.
   */
  pipeline?: boolean;
  /** Compile-time constants, read in the kernel as `this.constants.name`. */
  constants?: Record<string, number>;
  /** Upper bound of loops whose length is an argument (gpu.js `loopMaxIterations`). */
  loopMaxIterations?: number;
}

const KNOWN: readonly (keyof KernelSettings)[] = [
  'output',
  'pipeline',
  'constants',
  'loopMaxIterations',
];

/** Checks `settings` and returns a canonical copy (its JSON is part of the cache key). */
export function checkSettings(settings: unknown, caller: string): KernelSettings {
  checkOptions(settings, {
    known: KNOWN,
    notObject: (v) =>
      `${caller}: settings must be an object such as { output: [1024] }; got ${describeValue(v)}`,
    unknownKey: (key, known) => `${caller}: unknown setting '${key}'; known: ${known.join(', ')}`,
  });
  const s = settings as KernelSettings;
  const { output } = s;
  if (
    !Array.isArray(output) ||
    output.length < 1 ||
    output.length > 3 ||
    !output.every((n) => Number.isInteger(n) && n > 0)
  ) {
    throw new ArgumentError(
      `${caller}: settings.output must be 1 to 3 positive integers, e.g. [1024] or [512, 512]; got ${describeValue(output)}`,
    );
  }
  if (s.pipeline !== undefined && typeof s.pipeline !== 'boolean') {
    throw new ArgumentError(
      `${caller}: settings.pipeline must be a boolean; got ${describeValue(s.pipeline)}`,
    );
  }
  if (
    s.constants !== undefined &&
    (typeof s.constants !== 'object' ||
      s.constants === null ||
      !Object.values(s.constants).every((v) => typeof v === 'number'))
  ) {
    throw new ArgumentError(
      `${caller}: settings.constants must map names to numbers; got ${describeValue(s.constants)}`,
    );
  }
  if (
    s.loopMaxIterations !== undefined &&
    !(Number.isInteger(s.loopMaxIterations) && s.loopMaxIterations > 0)
  ) {
    throw new ArgumentError(
      `${caller}: settings.loopMaxIterations must be a positive integer; got ${describeValue(s.loopMaxIterations)}`,
    );
  }
  const out: KernelSettings = { output: [...output] };
  if (s.pipeline) out.pipeline = true;
  if (s.constants) out.constants = { ...s.constants };
  if (s.loopMaxIterations) out.loopMaxIterations = s.loopMaxIterations;
  return out;
}
