// The stencil block kernel's JavaScript loop: its source made from a plan and compiled, once per
// kernel and block layout on each thread. Self-contained (no imports, no outer variables), so it
// travels inside the block kernel's source to worker threads and processes.
import { linkKernel } from './kernel-link.js';
import type { StencilPlan } from './stencil-plan.js';

/**
 * Compiles the loop of `plan` over a block whose padded inputs have strides `PS`:
 * `run(padded, own, out, start, kernel)` writes every element of `out` (contiguous,
 * column-major), reading the interior of each input's own block in place and the rim (and,
 * with `mixedRim`, only the halo reads of the first and last rows) from its padded buffer.
 */
function stencilLoopKernel(plan: StencilPlan, PS: number[], mixedRim: boolean): Function {
  const { shape, radius } = plan;
  const nd = shape.length;
  const at = plan.atName;
  const idx = plan.idxName;
  const BS: number[] = [];
  let m = 1;
  for (const x of shape) {
    BS.push(m);
    m *= x;
  }
  // Each token becomes an index: into the padded buffer (`P`, strides $$S) or the own block
  // in place (`U`, strides $$T); an input read only at offset 0 is its own block at $$o.
  const subst = (text: string, variant: string) =>
    text.replace(/\$\$SITE(\d+)\$\$/g, (_: string, k: string) => {
      const site = plan.sites[Number(k)];
      const i = site.input;
      if (!plan.inputs[i].padded) return `$$U${i}[$$o]`;
      const terms = site.args.map((a, d) => {
        const v = site.literal ? `(${Number(a)})` : `$$chk(${a}, ${radius[d]})`;
        return `${v} * $$${variant === 'P' ? 'S' : 'T'}${d}`;
      });
      return `${variant === 'P' ? '$$P' : '$$U'}${i}[${at} + ${terms.join(' + ')}]`;
    });
  const lines: string[] = ['"use strict";', 'return function ($$P, $$U, $$out, $$start, $$k) {'];
  for (let d = 0; d < nd; d++) lines.push(`const $$S${d} = ${PS[d]};`, `const $$T${d} = ${BS[d]};`);
  for (let i = 0; i < plan.inputs.length; i++) {
    if (plan.inputs[i].padded) lines.push(`const $$P${i} = $$P[${i}];`);
    lines.push(`const $$U${i} = $$U[${i}];`);
  }
  if (idx) lines.push(`const ${idx} = $$start.slice();`);
  lines.push(
    'const $$chk = (v, r) => { if (!Number.isInteger(v) || v < -r || v > r) throw new RangeError("stencil: offset " + v + " is not an integer within the radius " + r); return v; };',
  );
  if (plan.module !== null) {
    // The kernel's `at`: one closure per input, reading the padded buffer at `$$p` (the
    // element's position there) plus the offsets. An input read only with literal offsets
    // (checked at the call against the radius) is read as is; others check each offset.
    const methods = plan.names.map((n, i) => {
      const params = radius.map((_, d) => `$$a${d}`);
      const literal = plan.sites.every((site) => site.input !== i || site.literal);
      const terms = radius.map((r, d) =>
        literal ? `$$a${d} * $$S${d}` : `$$chk($$a${d}, ${r}) * $$S${d}`,
      );
      return `${JSON.stringify(n)}: (${params.join(', ')}) => $$P${i}[$$p + ${terms.join(' + ')}]`;
    });
    lines.push(`let $$p = 0;`, `const $$at = { ${methods.join(', ')} };`);
  } else if (plan.expr === null) {
    lines.push(`const $$kP = (${subst(plan.source, 'P')});`);
    lines.push(`const $$kU = (${subst(plan.source, 'U')});`);
  }
  const value = (variant: string) =>
    plan.module !== null
      ? `($$p = ${at}, $$k($$at${idx ? `, ${idx}` : ''}))`
      : plan.expr === null
        ? `$$k${variant}(${at}${idx ? `, ${idx}` : ''})`
        : `(${subst(plan.expr, variant)})`;
  // One run along dimension 0 from j0 = a to b: padded or in place.
  const segment = (a: string, b: string, variant: string) => {
    const first = variant === 'P' ? `$$p0 + ${a}` : `$$o0 + ${a}`;
    lines.push(`{ let ${at} = ${first}; let $$o = $$o0 + ${a};`);
    lines.push(`for (let $$j0 = ${a}; $$j0 < ${b}; $$j0++, ${at}++, $$o++) {`);
    if (idx) lines.push(`${idx}[0] = $$start[0] + $$j0;`);
    lines.push(`$$out[$$o] = ${value(variant)}; } }`);
  };
  for (let d = nd - 1; d >= 1; d--) {
    lines.push(`for (let $$j${d} = 0; $$j${d} < ${shape[d]}; $$j${d}++) {`);
    if (idx) lines.push(`${idx}[${d}] = $$start[${d}] + $$j${d};`);
  }
  let p0 = `${radius[0]}`;
  let o0 = '0';
  let rim = 'false';
  for (let d = 1; d < nd; d++) {
    p0 += ` + ($$j${d} + ${radius[d]}) * ${PS[d]}`;
    o0 += ` + $$j${d} * ${BS[d]}`;
    rim += ` || $$j${d} < ${radius[d]} || $$j${d} >= ${shape[d] - radius[d]}`;
  }
  lines.push(`const $$p0 = ${p0}; const $$o0 = ${o0};`);
  // One element at j0 along dimension 0 of an interior column: each read of its own block
  // in place, each read past it (a halo) from the padded buffer.
  const mixedRow = (j0: number) => {
    const expr = (plan.expr as string).replace(/\$\$SITE(\d+)\$\$/g, (_: string, k: string) => {
      const site = plan.sites[Number(k)];
      const i = site.input;
      if (!plan.inputs[i].padded) return `$$U${i}[$$o]`;
      const o = site.args.map(Number);
      const own = j0 + o[0] >= 0 && j0 + o[0] < shape[0];
      const terms = o.map((v, d) => `(${v}) * $$${own ? 'T' : 'S'}${d}`);
      return `${own ? '$$U' : '$$P'}${i}[${own ? '$$o' : '$$pp'} + ${terms.join(' + ')}]`;
    });
    lines.push(`{ const $$pp = $$p0 + ${j0}; const $$o = $$o0 + ${j0};`);
    if (idx) lines.push(`${idx}[0] = $$start[0] + ${j0};`);
    lines.push(`$$out[$$o] = (${expr}); }`);
  };
  const r0 = radius[0];
  const n0 = shape[0];
  if (!plan.inputs.some((i) => i.padded)) segment('0', `${n0}`, 'U');
  else if (n0 <= 2 * r0 || plan.module !== null) segment('0', `${n0}`, 'P');
  else {
    lines.push(`if (${rim}) {`);
    segment('0', `${n0}`, 'P');
    lines.push('} else {');
    if (mixedRim) for (let j0 = 0; j0 < r0; j0++) mixedRow(j0);
    else segment('0', `${r0}`, 'P');
    segment(`${r0}`, `${n0 - r0}`, 'U');
    if (mixedRim) for (let j0 = n0 - r0; j0 < n0; j0++) mixedRow(j0);
    else segment(`${n0 - r0}`, `${n0}`, 'P');
    lines.push('}');
  }
  for (let d = 1; d < nd; d++) lines.push('}');
  lines.push('};');
  return new Function(lines.join('\n'))() as Function;
}

/** `stencilLoopKernel`, self-contained, as the block kernel splices it into its source. */
export const stencilLoop: (plan: StencilPlan, PS: number[], mixedRim: boolean) => Function =
  linkKernel(stencilLoopKernel, 'stencilLoop');
