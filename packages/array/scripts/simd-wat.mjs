// The WebAssembly text of the SIMD kernels (128-bit: f64x2 and f32x4), generated so that the
// register-blocked micro-kernel's unrolled body is written once for both element types.
//
// gemm_<t>(mc, nc, kc, pa, pb, pc, ldc): C += A·B over packed panels, BLIS's macro-kernel.
//   pa: A packed in row panels of MR rows: panel r holds, for p = 0 … kc-1, the MR values
//       A[r·MR … r·MR+MR-1, p] contiguously (MR·kc elements a panel).
//   pb: B packed in column panels of NR columns: panel c holds, for p = 0 … kc-1, the NR values
//       B[p, c·NR … c·NR+NR-1] contiguously.
//   pc: C, column-major with leading dimension ldc (elements). mc is a multiple of MR, nc of NR.
// Every address is a byte offset into the module's own memory; the caller packs and unpacks.
// The micro-kernel keeps an MR × NR tile of C in MR/lanes × NR vector accumulators: per step p
// it loads MR/lanes vectors of A, splats NR values of B, and does MR·NR multiply-adds.
// The whole-block reductions (reduce_<op>_<t>) come from simd-reduce-wat.mjs, the element-wise
// programs (ew_<t>) from simd-elementwise-wat.mjs.
import { elementwiseWat } from './simd-elementwise-wat.mjs';
import { reduceWat } from './simd-reduce-wat.mjs';

/** The kernel shapes: micro-tile rows (MR) and columns (NR), lanes per vector, element bytes. */
export const SHAPES = {
  f64: { lanes: 2, bytes: 8, mr: 4, nr: 4 },
  f32: { lanes: 4, bytes: 4, mr: 8, nr: 4 },
};

function gemm(t) {
  const { lanes, bytes, mr, nr } = SHAPES[t];
  const vecs = mr / lanes;
  const acc = [];
  for (let c = 0; c < nr; c++) for (let v = 0; v < vecs; v++) acc.push(`$c${v}_${c}`);
  const out = [];
  const w = (s) => out.push(s);
  w(`(func (export "gemm_${t}") (param $mc i32) (param $nc i32) (param $kc i32)`);
  w('  (param $pa i32) (param $pb i32) (param $pc i32) (param $ldc i32)');
  w(
    '  (local $jr i32) (local $ir i32) (local $p i32) (local $a i32) (local $b i32) (local $cp i32)',
  );
  w('  (local $ldcb i32) (local $bj i32) (local $ai i32)');
  for (const a of acc) w(`  (local ${a} v128)`);
  for (let v = 0; v < vecs; v++) w(`  (local $a${v} v128)`);
  w('  (local $s v128)');
  w(`  (local.set $ldcb (i32.mul (local.get $ldc) (i32.const ${bytes})))`);
  w('  (local.set $jr (i32.const 0))');
  w('  (block $jdone (loop $jloop');
  w('    (br_if $jdone (i32.ge_u (local.get $jr) (local.get $nc)))');
  w(
    `    (local.set $bj (i32.add (local.get $pb) (i32.mul (i32.mul (local.get $jr) (local.get $kc)) (i32.const ${bytes}))))`,
  );
  w('    (local.set $ir (i32.const 0))');
  w('    (block $idone (loop $iloop');
  w('      (br_if $idone (i32.ge_u (local.get $ir) (local.get $mc)))');
  for (const a of acc) w(`      (local.set ${a} (v128.const i64x2 0 0))`);
  w(
    `      (local.set $a (i32.add (local.get $pa) (i32.mul (i32.mul (local.get $ir) (local.get $kc)) (i32.const ${bytes}))))`,
  );
  w('      (local.set $b (local.get $bj))');
  w('      (local.set $p (local.get $kc))');
  w('      (block $pdone (loop $ploop');
  w('        (br_if $pdone (i32.eqz (local.get $p)))');
  for (let v = 0; v < vecs; v++)
    w(`        (local.set $a${v} (v128.load offset=${v * 16} (local.get $a)))`);
  for (let c = 0; c < nr; c++) {
    w(`        (local.set $s (v128.load${bytes * 8}_splat offset=${c * bytes} (local.get $b)))`);
    for (let v = 0; v < vecs; v++) {
      const x = `$c${v}_${c}`;
      w(
        `        (local.set ${x} (${t}x${lanes}.add (local.get ${x}) (${t}x${lanes}.mul (local.get $a${v}) (local.get $s))))`,
      );
    }
  }
  w(`        (local.set $a (i32.add (local.get $a) (i32.const ${mr * bytes})))`);
  w(`        (local.set $b (i32.add (local.get $b) (i32.const ${nr * bytes})))`);
  w('        (local.set $p (i32.sub (local.get $p) (i32.const 1)))');
  w('        (br $ploop)))');
  // C tile += the accumulators.
  w(
    `      (local.set $cp (i32.add (local.get $pc) (i32.mul (i32.add (local.get $ir) (i32.mul (local.get $jr) (local.get $ldc))) (i32.const ${bytes}))))`,
  );
  for (let c = 0; c < nr; c++) {
    for (let v = 0; v < vecs; v++) {
      const x = `$c${v}_${c}`;
      w(
        `      (v128.store offset=${v * 16} (local.get $cp) (${t}x${lanes}.add (v128.load offset=${v * 16} (local.get $cp)) (local.get ${x})))`,
      );
    }
    if (c + 1 < nr) w('      (local.set $cp (i32.add (local.get $cp) (local.get $ldcb)))');
  }
  w(`      (local.set $ir (i32.add (local.get $ir) (i32.const ${mr})))`);
  w('      (br $iloop)))');
  w(`    (local.set $jr (i32.add (local.get $jr) (i32.const ${nr})))`);
  w('    (br $jloop)))');
  w(')');
  return out.join('\n');
}

/**
 * pack_<t>(src, rs, cs, rows, cols, r, panels, dst, scale): packs a rows × cols matrix (element
 * (i, p) at byte src + (i·rs + p·cs)·bytes), times `scale`, into `panels` panels of r rows each:
 * panel k holds, for p = 0 … cols-1, the r values of rows k·r … k·r+r-1 of column p, zeros past
 * `rows`. A packs
 * with r = MR (i a row, p along k); B with r = NR and its strides swapped (i a column of B).
 */
function pack(t) {
  const bytes = t === 'f64' ? 8 : 4;
  const w = [];
  w.push(`(func (export "pack_${t}") (param $src i32) (param $rs i32) (param $cs i32)`);
  w.push(
    '  (param $rows i32) (param $cols i32) (param $r i32) (param $panels i32) (param $dst i32)',
  );
  w.push(`  (param $scale ${t})`);
  w.push(
    '  (local $k i32) (local $i0 i32) (local $p i32) (local $q i32) (local $col i32) (local $at i32)',
  );
  w.push(`  (local.set $rs (i32.mul (local.get $rs) (i32.const ${bytes})))`);
  w.push(`  (local.set $cs (i32.mul (local.get $cs) (i32.const ${bytes})))`);
  w.push('  (block $kdone (loop $kloop');
  w.push('    (br_if $kdone (i32.ge_u (local.get $k) (local.get $panels)))');
  w.push('    (local.set $i0 (i32.mul (local.get $k) (local.get $r)))');
  w.push(
    '    (local.set $col (i32.add (local.get $src) (i32.mul (local.get $i0) (local.get $rs))))',
  );
  w.push('    (local.set $p (i32.const 0))');
  w.push('    (block $pdone (loop $ploop');
  w.push('      (br_if $pdone (i32.ge_u (local.get $p) (local.get $cols)))');
  w.push('      (local.set $at (local.get $col))');
  w.push('      (local.set $q (i32.const 0))');
  w.push('      (block $qdone (loop $qloop');
  w.push('        (br_if $qdone (i32.ge_u (local.get $q) (local.get $r)))');
  // A row past `rows` is a zero (padding to a whole panel).
  w.push(
    `        (${t}.store (local.get $dst) (select (${t}.mul (${t}.load (local.get $at)) (local.get $scale)) (${t}.const 0)`,
  );
  w.push('          (i32.lt_u (i32.add (local.get $i0) (local.get $q)) (local.get $rows))))');
  w.push(`        (local.set $dst (i32.add (local.get $dst) (i32.const ${bytes})))`);
  w.push('        (local.set $at (i32.add (local.get $at) (local.get $rs)))');
  w.push('        (local.set $q (i32.add (local.get $q) (i32.const 1)))');
  w.push('        (br $qloop)))');
  w.push('      (local.set $col (i32.add (local.get $col) (local.get $cs)))');
  w.push('      (local.set $p (i32.add (local.get $p) (i32.const 1)))');
  w.push('      (br $ploop)))');
  w.push('    (local.set $k (i32.add (local.get $k) (i32.const 1)))');
  w.push('    (br $kloop)))');
  w.push(')');
  return w.join('\n');
}

/** The whole module's text: its memory (grown by the caller) and the kernels. */
export function simdWat() {
  return [
    '(module',
    '(memory (export "memory") 1)',
    gemm('f64'),
    gemm('f32'),
    pack('f64'),
    pack('f32'),
    reduceWat(),
    elementwiseWat(),
    ')',
  ].join('\n');
}
