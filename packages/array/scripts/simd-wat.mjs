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
// The whole-block reductions (reduce_<op>_<t>) come from simd-reduce-wat.mjs.
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

/** The whole module's text: its memory (grown by the caller) and the kernels. */
export function simdWat() {
  return [
    '(module',
    '(memory (export "memory") 1)',
    gemm('f64'),
    gemm('f32'),
    reduceWat(),
    ')',
  ].join('\n');
}
