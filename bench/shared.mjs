// What both benchmark drivers share: flags, medians and plain-text tables.
import process from 'node:process';

/** `--quick`, `--rounds=N` (default `defaultRounds`), `--check`; exits with code 2 on anything else. */
export function parseFlags(argv = process.argv.slice(2), defaultRounds = 5) {
  const flags = new Map(
    argv.map((a) => {
      const [k, v] = a.replace(/^--/, '').split('=');
      return [k, v ?? 'true'];
    }),
  );
  for (const k of flags.keys()) {
    if (!['quick', 'rounds', 'check'].includes(k)) {
      console.error(`unknown flag --${k}; known: --quick, --rounds=N, --check`);
      process.exit(2);
    }
  }
  const rounds = Number(flags.get('rounds') ?? defaultRounds);
  if (!Number.isInteger(rounds) || rounds < 1) {
    console.error('--rounds must be a positive integer');
    process.exit(2);
  }
  return { quick: flags.has('quick'), rounds, check: flags.has('check') };
}

/** The median of numbers. */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** A table: first column left-aligned, the rest right-aligned. */
export function table(head, rows) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (r) =>
    r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i])));
  const out = [line(head).join('  '), widths.map((w) => '-'.repeat(w)).join('  ')];
  for (const r of rows) out.push(line(r).join('  '));
  return out.join('\n');
}

/** 1234567 → '1,234,567'. */
export const int = (x) => Math.round(x).toLocaleString('en-US');
/** A number with `d` decimals. */
export const fixed = (x, d = 2) => x.toFixed(d);
