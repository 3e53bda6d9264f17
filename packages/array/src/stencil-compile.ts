import { ArgumentError } from '@dtask/core';
import { checkFunctionTravel, moduleRefOf } from '@dtask/core/plugin';
import { functionSource } from './elementwise.js';
import { type SweepProgram, sweepProgramOf } from './stencil-simd-program.js';

/** A stencil kernel: `at.NAME(...offsets)` reads input `NAME` near the element; `idx` is its global index. */
export type StencilKernel = (
  at: Record<string, (...offsets: number[]) => number>,
  idx: readonly number[],
) => number;

/** A kernel rewritten for the block tasks (see `StencilPlan`). */
export interface CompiledKernel {
  /** The function source with each `at.NAME(offsets)` replaced by the token `$$SITE<k>$$`. */
  source: string;
  /** The expression body of an arrow kernel so tokenised, else null. */
  expr: string | null;
  /** Each read, in token order: the input's name and its offsets (source text). */
  sites: { name: string; args: string[]; literal: boolean }[];
  /** The first parameter's name. */
  atName: string;
  /** The second parameter's name, or null. */
  idxName: string | null;
  /**
   * Per input read (by name): whether it needs a halo (any offset that is not all zeros) and
   * its literal offsets (null when some offset is computed at run time).
   */
  reads: Map<string, { halo: boolean; offsets: number[][] | null }>;
  /**
   * For a kernel exported by a module loaded with `everywhere` that uses its module's names
   * (not self-contained): where the block tasks find it (the module's URL and the export's
   * name). They call it per element; every input is then read padded. Null otherwise.
   */
  module: { url: string; name: string } | null;
  /** The kernel as a SIMD sweep program, where it is arithmetic of literal-offset reads. */
  simd: SweepProgram | null;
}

const IDENT = '[A-Za-z_$][\\w$]*';

/**
 * Each kernel function's compiled forms, by the inputs' names and the radius (their JSON), with
 * the module reference it had then (`moduleRefOf`): a stencil call compiles every step's kernel,
 * and a program calls it again and again with the same kernels (`stencilSteps` in a loop), so a
 * call after the first finds them here instead of checking and parsing each source again (its
 * travel check, a `Function` made from it, the regular expressions built for its names; about a
 * millisecond a call of 20 steps, most of it on code V8 compiled anew at every call).
 */
const compiled = new WeakMap<Function, Map<string, { ref: unknown; kernel: CompiledKernel }>>();

/**
 * Checks a kernel at the call and marks each `at.NAME(o₀, o₁, …)` with a token that the block
 * task replaces by a direct typed-array index (see `stencilBlock`). Literal offsets are
 * checked against `radius` here; others when they run. A function compiled before with the same
 * names and radius gives the same result (kept per function while it lives; the result is
 * read only).
 * Throws `TaskFunctionError` for a kernel using outer variables (naming them) and
 * `ArgumentError` for an unknown name, a wrong number of offsets or an offset past the radius.
 */
export function compileKernel(
  kernel: unknown,
  names: readonly string[],
  radius: readonly number[],
  what: string,
): CompiledKernel {
  if (typeof kernel !== 'function') return compileSource(kernel, names, radius, what);
  const key = JSON.stringify([names, radius]);
  const ref = moduleRefOf(kernel);
  let byKey = compiled.get(kernel);
  const kept = byKey?.get(key);
  if (kept !== undefined && kept.ref === ref) return kept.kernel;
  const made = compileSource(kernel, names, radius, what);
  if (byKey === undefined) {
    byKey = new Map();
    compiled.set(kernel, byKey);
  }
  byKey.set(key, { ref, kernel: made });
  return made;
}

/** `compileKernel`'s work, for a kernel not compiled before with these names and radius. */
function compileSource(
  kernel: unknown,
  names: readonly string[],
  radius: readonly number[],
  what: string,
): CompiledKernel {
  const source = functionSource(kernel, what, '(at, idx) => number').trim();
  const module = moduleKernel(kernel as Function, source);
  const nd = radius.length;
  const head = new RegExp(
    `^(?:async\\s+)?(?:function\\b\\s*(?:${IDENT})?\\s*\\(([^)]*)\\)|\\(([^)]*)\\)\\s*=>|(${IDENT})\\s*=>)`,
  ).exec(source);
  if (head === null || /^async\b/.test(source)) {
    throw new ArgumentError(
      `${what}: the kernel must be a plain function (at, idx) => number; got ${source.slice(0, 60)}`,
    );
  }
  const params = (head[1] ?? head[2] ?? head[3] ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (params.length > 2 || params.some((p) => !new RegExp(`^${IDENT}$`).test(p))) {
    throw new ArgumentError(
      `${what}: the kernel takes (at) or (at, idx) as plain parameter names; got (${params.join(', ')})`,
    );
  }
  const [atName = '$$at', idxName = null] = params;
  const body = source.slice(head[0].length);
  const reads = new Map<string, { halo: boolean; offsets: number[][] | null }>();
  const sites: { name: string; halo: boolean; args: string[]; literal: boolean }[] = [];
  const call = new RegExp(
    `(?<![\\w$.])${atName.replace(/\$/g, '\\$')}\\s*\\.\\s*(${IDENT})\\s*\\(((?:[^()]|\\([^()]*\\))*)\\)`,
    'g',
  );
  const usesAt = new RegExp(`(?<![\\w$.])${atName.replace(/\$/g, '\\$')}(?![\\w$])`);
  for (const m of body.matchAll(call)) {
    const name = m[1];
    if (!names.includes(name)) {
      throw new ArgumentError(
        `${what}: the kernel reads ${atName}.${name}, but the inputs are ${names.join(', ')}`,
      );
    }
    const args = topLevelArgs(m[2]);
    if (args.some((a) => usesAt.test(a))) {
      throw new ArgumentError(
        `${what}: use the kernel's first parameter only as ${atName}.NAME(...offsets) with offsets that do not read ${atName}; got ${m[0]}`,
      );
    }
    if (args.length !== nd || args.some((a) => a === '')) {
      throw new ArgumentError(
        `${what}: ${m[0]} gives ${args.length} offsets; give one per dimension (${nd})`,
      );
    }
    const literal = args.every((a) => /^[-+]?\d+$/.test(a));
    if (literal) {
      args.forEach((a, d) => {
        if (Math.abs(Number(a)) > radius[d]) {
          throw new ArgumentError(
            `${what}: ${m[0]} reads offset ${a} along dimension ${d}, past the radius ${radius[d]}; pass { radius: ${Math.abs(Number(a))} } or more`,
          );
        }
      });
    }
    const halo = !literal || args.some((a) => Number(a) !== 0);
    sites.push({ name, halo, args, literal });
    const before = reads.get(name) ?? { halo: false, offsets: [] };
    const offsets =
      before.offsets === null || !literal ? null : [...before.offsets, args.map(Number)];
    reads.set(name, { halo: before.halo || halo, offsets });
  }
  const expression = /^\s*[^{\s]/.test(body) && head[1] === undefined;
  // A block body, or a module's kernel, is called per element, so its inputs are read
  // through `at` (padded).
  if (!expression || module !== null) for (const r of reads.values()) r.halo = true;
  let k = 0;
  const rewritten = body.replace(call, () => `$$SITE${k++}$$`);
  if (new RegExp(`(?<![\\w$.])${atName.replace(/\$/g, '\\$')}(?![\\w$])`).test(rewritten)) {
    throw new ArgumentError(
      `${what}: use the kernel's first parameter only as ${atName}.NAME(...offsets) with offsets that do not read it; got ${source.slice(0, 80)}`,
    );
  }
  const simd =
    expression && module === null && sites.every((s) => s.literal)
      ? (sweepProgramOf(rewritten, sites.length) ?? null)
      : null;
  return {
    source: `${source.slice(0, head[0].length)}${rewritten}`,
    expr: expression ? rewritten : null,
    simd,
    sites: sites.map(({ name, args, literal }) => ({ name, args, literal })),
    atName,
    idxName,
    reads,
    module,
  };
}

/**
 * A kernel exported by a module loaded with `everywhere` that uses names of its module: where
 * the block tasks find it. Null for any other kernel, and for a module's kernel that is
 * self-contained, which is compiled from its source text (inlined into the block's loop) as
 * a kernel written at the call is.
 */
function moduleKernel(kernel: Function, source: string): { url: string; name: string } | null {
  const ref = moduleRefOf(kernel);
  if (ref === undefined) return null;
  let copy: unknown;
  try {
    copy = new Function(`return (${source});`)();
  } catch {
    return { url: ref.module, name: ref.name };
  }
  const selfContained = typeof copy === 'function' && checkFunctionTravel(copy).ok;
  return selfContained ? null : { url: ref.module, name: ref.name };
}

/** `text` split at its commas outside parentheses (offsets may group: `(idx[0] % 2) * 2`). */
function topLevelArgs(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out;
}
