// The WebAssembly text of the SIMD whole-block reductions (128-bit: f64x2, f32x4), generated so
// that each reduction is written once for both element types.
//
// reduce_<op>_<t>(p, n) → f64: the reduction `op` of the n elements of type t at byte address p
// of the module's memory (16-byte aligned). Four vector accumulators run side by side (8 lanes
// of f64, or 16 lanes of f32 for min/max), so the adds do not wait on each other, then a scalar
// loop takes the tail and the lanes are combined. float32 sums are accumulated in float64 (each
// f32x4 widened to two f64x2), as the JavaScript loop accumulates them; min/max compare in the
// element type (exact), with NaN winning as with Math.min / Math.max. Products are accumulated
// in float64 like sums (float32 widened).
//   sum: Σx   sumsq: Σx²   sumabs: Σ|x|   prod: Πx   min / max: of x   minabs / maxabs: of |x|
// Sums start from 0, products from 1, the others from the first element (n ≥ 1 for those).

/** The reductions the module exports, by name. */
export const REDUCE_OPS = ['sum', 'sumsq', 'sumabs', 'prod', 'min', 'max', 'minabs', 'maxabs'];

const UNROLL = 4;

function reduce(op, t) {
  const sumLike = op.startsWith('sum');
  const abs = op === 'sumabs' || op.endsWith('abs');
  const cmp = op.startsWith('min') ? 'min' : op.startsWith('max') ? 'max' : undefined;
  // Sums and products accumulate in f64; `comb` combines two partial results.
  const acc64 = sumLike || op === 'prod';
  const comb = op === 'prod' ? 'mul' : sumLike ? 'add' : cmp;
  const bytes = t === 'f64' ? 8 : 4;
  // Vector accumulators hold f64 for sums and products (f32 widened), the element type for
  // min/max.
  const vt = acc64 ? 'f64x2' : `${t}x${16 / bytes}`;
  const per = 16 / bytes; // elements per loaded vector
  const out = [];
  const w = (s) => out.push(s);
  const accs = Array.from({ length: UNROLL }, (_, u) => `$v${u}`);
  const widen = acc64 && t === 'f32';
  w(`(func (export "reduce_${op}_${t}") (param $p i32) (param $n i32) (result f64)`);
  w('  (local $end i32) (local $x v128) (local $s f64)');
  for (const a of accs) w(`  (local ${a} v128)`);
  if (widen) for (const a of accs) w(`  (local ${a}h v128)`);
  // Initial values: 0 for sums, 1 for products, the first element (its |x| for the abs
  // variants) otherwise.
  if (op === 'prod') {
    for (const a of accs) w(`  (local.set ${a} (v128.const f64x2 1 1))`);
    if (widen) for (const a of accs) w(`  (local.set ${a}h (v128.const f64x2 1 1))`);
    w('  (local.set $s (f64.const 1))');
  } else if (sumLike) {
    for (const a of accs) w(`  (local.set ${a} (v128.const i64x2 0 0))`);
    if (widen) for (const a of accs) w(`  (local.set ${a}h (v128.const i64x2 0 0))`);
    w('  (local.set $s (f64.const 0))');
  } else {
    const first = `(${t}.load (local.get $p))`;
    const v = abs ? `(${t}.abs ${first})` : first;
    for (const a of accs) w(`  (local.set ${a} (${vt}.splat ${v}))`);
    w(`  (local.set $s ${t === 'f32' ? `(f64.promote_f32 ${v})` : v})`);
  }
  const stepVec = (acc, x) => {
    const y = abs ? `(${vt}.abs ${x})` : x;
    if (op === 'sumsq') return `(${vt}.add (local.get ${acc}) (${vt}.mul ${x} ${x}))`;
    return `(${vt}.${comb} (local.get ${acc}) ${y})`;
  };
  // Main loop: UNROLL vectors a step.
  const stride = UNROLL * 16;
  w(
    `  (local.set $end (i32.add (local.get $p) (i32.mul (i32.and (local.get $n) (i32.const ${-UNROLL * per})) (i32.const ${bytes}))))`,
  );
  w('  (block $vdone (loop $vloop');
  w('    (br_if $vdone (i32.ge_u (local.get $p) (local.get $end)))');
  for (let u = 0; u < UNROLL; u++) {
    const a = accs[u];
    w(`    (local.set $x (v128.load offset=${u * 16} (local.get $p)))`);
    if (widen) {
      const lo = '(f64x2.promote_low_f32x4 (local.get $x))';
      const hi =
        '(f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $x) (local.get $x)))';
      w(`    (local.set ${a} ${stepVec(a, lo)})`);
      w(`    (local.set ${a}h ${stepVec(`${a}h`, hi)})`);
    } else {
      w(`    (local.set ${a} ${stepVec(a, '(local.get $x)')})`);
    }
  }
  w(`    (local.set $p (i32.add (local.get $p) (i32.const ${stride})))`);
  w('    (br $vloop)))');
  // Fold the accumulators into the first, then its lanes into the scalar.
  const fold = (a, b) => `(${vt}.${comb} (local.get ${a}) (local.get ${b}))`;
  if (widen) for (const a of accs) w(`  (local.set ${a} ${fold(a, `${a}h`)})`);
  for (let u = 1; u < UNROLL; u++) w(`  (local.set $v0 ${fold('$v0', accs[u])})`);
  const sop = `f64.${comb}`;
  const lanes = acc64 || t === 'f64' ? 2 : 4;
  for (let l = 0; l < lanes; l++) {
    const lane = `(${vt}.extract_lane ${l} (local.get $v0))`;
    const v = !acc64 && t === 'f32' ? `(f64.promote_f32 ${lane})` : lane;
    w(`  (local.set $s (${sop} (local.get $s) ${v}))`);
  }
  // The tail, one element at a time.
  w(
    `  (local.set $end (i32.add (local.get $end) (i32.mul (i32.and (local.get $n) (i32.const ${UNROLL * per - 1})) (i32.const ${bytes}))))`,
  );
  w('  (block $sdone (loop $sloop');
  w('    (br_if $sdone (i32.ge_u (local.get $p) (local.get $end)))');
  let x = `(${t}.load (local.get $p))`;
  if (t === 'f32') x = `(f64.promote_f32 ${x})`;
  const y = abs ? `(f64.abs ${x})` : x;
  const step = op === 'sumsq' ? `(f64.mul ${x} ${x})` : y;
  w(`    (local.set $s (${sop} (local.get $s) ${step}))`);
  w(`    (local.set $p (i32.add (local.get $p) (i32.const ${bytes})))`);
  w('    (br $sloop)))');
  w('  (local.get $s))');
  return out.join('\n');
}

/** The reduction functions' text, for both element types. */
export function reduceWat() {
  const fns = [];
  for (const t of ['f64', 'f32']) for (const op of REDUCE_OPS) fns.push(reduce(op, t));
  return fns.join('\n');
}
