// The demo's command-line flags: `--size small|default|large`, `--inputs N` and `--out path`,
// parsed and validated into the sizes each step of the demo uses.
import { ArgumentError } from '@dtask/core';

/** Sizes of each step of the demo. */
export interface DemoSizes {
  /** Generated inputs of the feature-extraction pipeline. */
  inputs: number;
  /** Side of each generated image, in pixels. */
  imageSide: number;
  /** Tiles per side of the tiled Cholesky. */
  tiles: number;
  /** Side of one Cholesky tile. */
  tileSide: number;
  /** Increments made on the sharded counter. */
  increments: number;
  /** Side of the distributed array's square matrices. */
  arraySide: number;
  /** Side of one of its blocks. */
  arrayBlock: number;
  /** Batches of the mixed GPU/CPU collection. */
  batches: number;
  /** Float32 values per batch. */
  batchLength: number;
  /** Side of the gpu.js step's square matrices. */
  kernelSide: number;
}

/** What the flags chose. */
export interface DemoFlags {
  /** The named size (`small`, `default` or `large`). */
  size: DemoSize;
  /** The sizes, after `--inputs` overrides the named size's input count. */
  sizes: DemoSizes;
  /** Where the HTML report goes; `undefined`: a temp folder. */
  out: string | undefined;
  /** `--help` (or `-h`) was given: print `DEMO_HELP` and run nothing. */
  help?: true;
}

/** The named sizes. */
export type DemoSize = 'small' | 'default' | 'large';

/** The sizes behind each named size. */
export const DEMO_SIZES: Readonly<Record<DemoSize, Readonly<DemoSizes>>> = {
  small: {
    inputs: 40,
    imageSide: 32,
    tiles: 3,
    tileSide: 16,
    increments: 200,
    arraySide: 90,
    arrayBlock: 32,
    batches: 4,
    batchLength: 4096,
    kernelSide: 24,
  },
  default: {
    inputs: 300,
    imageSide: 64,
    tiles: 4,
    tileSide: 48,
    increments: 2000,
    arraySide: 500,
    arrayBlock: 128,
    batches: 8,
    batchLength: 1 << 16,
    kernelSide: 128,
  },
  large: {
    inputs: 2000,
    imageSide: 128,
    tiles: 8,
    tileSide: 64,
    increments: 20000,
    arraySide: 1500,
    arrayBlock: 256,
    batches: 16,
    batchLength: 1 << 20,
    kernelSide: 512,
  },
};

const USAGE =
  'usage: npm run demo -- [--size small|default|large] [--inputs N] [--out report.html] [--help]';

/** What `--help` prints: the usage line and what each flag does. */
export const DEMO_HELP = `${USAGE}

Runs a job on worker threads, a worker process, TensorFlow.js and gpu.js processors and an
LMDB store, prints a summary and writes an HTML report of the run.

  --size small|default|large  how much work (default: default)
  --inputs N                  images in the pipeline step, 1 to 100000 (default: the size's)
  --out report.html           where the report goes (default: a new temporary folder)
  --help, -h                  print this and exit`;

/**
 * Parses `argv` (without node and the script); throws `ArgumentError` naming the bad flag.
 * `--help` or `-h` anywhere wins: the result has `help: true` and nothing else is checked.
 */
export function parseDemoFlags(argv: readonly string[]): DemoFlags {
  let size: DemoSize = 'default';
  let inputs: number | undefined;
  let out: string | undefined;
  if (argv.includes('--help') || argv.includes('-h')) {
    return { size, sizes: DEMO_SIZES[size], out, help: true };
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    if (name !== '--size' && name !== '--inputs' && name !== '--out') {
      throw new ArgumentError(`unknown flag '${name}'; ${USAGE}`);
    }
    const value = eq === -1 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined || value === '') {
      throw new ArgumentError(`${name} needs a value; ${USAGE}`);
    }
    if (name === '--size') {
      if (!(value in DEMO_SIZES)) {
        throw new ArgumentError(`--size '${value}' is not one of small, default, large; ${USAGE}`);
      }
      size = value as DemoSize;
    } else if (name === '--inputs') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > 100_000) {
        throw new ArgumentError(
          `--inputs '${value}' must be an integer from 1 to 100000; ${USAGE}`,
        );
      }
      inputs = n;
    } else out = value;
  }
  return { size, sizes: { ...DEMO_SIZES[size], ...(inputs === undefined ? {} : { inputs }) }, out };
}
