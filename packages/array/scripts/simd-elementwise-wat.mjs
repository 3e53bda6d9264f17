// The WebAssembly text of the SIMD element-wise programs (128-bit: f64x2, f32x4): a small
// interpreter that runs a fused element-wise chain (add, sub, mul, div, min, max, neg, sqrt,
// abs over arrays and numbers) over one chunk of elements, an instruction at a time, each
// instruction one SIMD loop over the chunk (numexpr's way: the chunk's slots stay in cache).
//
// ew_<t>(prog, count, len): runs `count` instructions from byte address `prog`, each five i32:
//   op, dst, a, b, flags
// op: 0 add, 1 sub, 2 mul, 3 div, 4 min, 5 max (dst ← a op b), 6 neg, 7 sqrt, 8 abs (dst ← op a);
// dst, a, b: byte addresses of slots of `len` elements (rounded up to whole vectors: a slot has
// room for them), or, where flags bit 0 (a) or bit 1 (b) is set, of one scalar of type t used
// for every element. dst may be a or b (each vector is read before it is written).
// Each operation is IEEE's, as JavaScript's on the same values (min/max as Math.min/Math.max).

/** The element-wise operations by opcode. */
export const ELEMENTWISE_OPS = ['add', 'sub', 'mul', 'div', 'min', 'max', 'neg', 'sqrt', 'abs'];

function elementwise(t) {
  const bytes = t === 'f64' ? 8 : 4;
  const lanes = 16 / bytes;
  const v = `${t}x${lanes}`;
  const out = [];
  const w = (s) => out.push(s);
  w(`(func (export "ew_${t}") (param $prog i32) (param $count i32) (param $len i32)`);
  w('  (local $k i32) (local $p i32) (local $op i32) (local $d i32) (local $a i32) (local $b i32)');
  w('  (local $fl i32) (local $i i32) (local $bytes i32) (local $s v128)');
  // The chunk's bytes, rounded up to whole vectors.
  w(
    `  (local.set $bytes (i32.mul (i32.and (i32.add (local.get $len) (i32.const ${lanes - 1})) (i32.const ${-lanes})) (i32.const ${bytes})))`,
  );
  w('  (block $done (loop $next');
  w('    (br_if $done (i32.ge_u (local.get $k) (local.get $count)))');
  w('    (local.set $p (i32.add (local.get $prog) (i32.mul (local.get $k) (i32.const 20))))');
  w('    (local.set $op (i32.load (local.get $p)))');
  w('    (local.set $d (i32.load offset=4 (local.get $p)))');
  w('    (local.set $a (i32.load offset=8 (local.get $p)))');
  w('    (local.set $b (i32.load offset=12 (local.get $p)))');
  w('    (local.set $fl (i32.load offset=16 (local.get $p)))');
  w('    (local.set $i (i32.const 0))');
  const at = (r) => `(i32.add (local.get ${r}) (local.get $i))`;
  const loop = (body) => {
    w('      (loop $l');
    w(`        (v128.store ${at('$d')} ${body})`);
    w('        (local.set $i (i32.add (local.get $i) (i32.const 16)))');
    w('        (br_if $l (i32.lt_u (local.get $i) (local.get $bytes))))');
  };
  const splat = (r) => `(local.set $s (${v}.splat (${t}.load (local.get ${r}))))`;
  ELEMENTWISE_OPS.forEach((name, op) => {
    if (op < 6) {
      // Three forms: both vectors, b a scalar, a a scalar.
      const forms = [
        [0, `(${v}.${name} (v128.load ${at('$a')}) (v128.load ${at('$b')}))`, undefined],
        [2, `(${v}.${name} (v128.load ${at('$a')}) (local.get $s))`, '$b'],
        [1, `(${v}.${name} (local.get $s) (v128.load ${at('$b')}))`, '$a'],
      ];
      for (const [flags, body, scalar] of forms) {
        w(
          `    (if (i32.eq (i32.or (i32.shl (local.get $op) (i32.const 2)) (local.get $fl)) (i32.const ${op * 4 + flags})) (then`,
        );
        if (scalar) w(`      ${splat(scalar)}`);
        loop(body);
        w('    ))');
      }
    } else {
      w(`    (if (i32.eq (local.get $op) (i32.const ${op})) (then`);
      loop(`(${v}.${name} (v128.load ${at('$a')}))`);
      w('    ))');
    }
  });
  w('    (local.set $k (i32.add (local.get $k) (i32.const 1)))');
  w('    (br $next)))');
  w(')');
  return out.join('\n');
}

/** The element-wise interpreters of both element types. */
export function elementwiseWat() {
  return [elementwise('f64'), elementwise('f32')].join('\n');
}
