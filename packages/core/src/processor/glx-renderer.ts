import { execFileSync } from 'node:child_process';

/**
 * The X server's OpenGL renderer as `glxinfo -B` (mesa-utils) names it, with `, software`
 * when it reports no acceleration; or, when glxinfo is missing or does not answer, a
 * hidden renderer counted as software. For GPU plugins on headless-gl, whose ANGLE hides the
 * renderer below it. Blocks up to 5 s.
 */
export function glxRenderer(): string {
  try {
    const out = execFileSync('glxinfo', ['-B'], { encoding: 'utf8', timeout: 5000 });
    const renderer = /OpenGL renderer string:\s*(.+)/.exec(out)?.[1]?.trim();
    const unaccelerated = /Accelerated:\s*no/.test(out);
    if (renderer) return unaccelerated ? `${renderer}, software` : renderer;
  } catch {
    // not installed, or no answer
  }
  return 'a hidden renderer (install mesa-utils so glxinfo can name it), software';
}
