import { glxRenderer } from '@dtask/core/plugin';
import type { Tf } from './select-backend.js';

/** The parts of `@tensorflow/tfjs` (re-exported from its webgl backend) used here. */
interface TfWebgl {
  setWebGLContext(version: number, gl: unknown): void;
  MathBackendWebGL: new () => unknown;
  findBackendFactory(name: string): unknown;
  registerBackend(name: string, factory: () => unknown, priority?: number): boolean;
  env(): { set(flag: string, value: unknown): void };
}

/** A WebGL 1 context made by headless-gl (the `gl` package). */
interface HeadlessGl {
  getExtension(name: string): unknown;
  getParameter(p: number): unknown;
  RENDERER: number;
}

/**
 * Makes TensorFlow.js's `webgl` backend usable in Node, on a WebGL 1 context from headless-gl
 * (the `gl` package, an optional peer dependency that builds from source), and returns the GL
 * renderer and whether it is a GPU. Called in the TfjsProc's thread before `tf.setBackend`.
 * Needs an X server (`DISPLAY` set, e.g. under `xvfb-run -a`) and float textures. headless-gl
 * loads in one thread per process: where `@dtask/gpujs` took it first, this throws and the
 * next backend is tried. Throws an `Error` saying why it cannot.
 */
export async function prepareHeadlessWebgl(tf: Tf): Promise<{ renderer: string; gpu: boolean }> {
  if (!process.env.DISPLAY) {
    throw new Error('no X display (DISPLAY is unset; run under xvfb-run -a)');
  }
  const specifier = 'gl'; // a variable, so bundlers leave the optional peer alone
  const createGl = ((await import(specifier)) as { default: (...a: unknown[]) => unknown }).default;
  const gl = createGl(1, 1, { preserveDrawingBuffer: true }) as HeadlessGl | null;
  if (gl === null) throw new Error(`headless-gl made no context on display ${process.env.DISPLAY}`);
  if (!gl.getExtension('OES_texture_float')) {
    throw new Error('headless-gl has no float textures (OES_texture_float) here');
  }
  const webgl = tf as unknown as TfWebgl;
  webgl.setWebGLContext(1, gl);
  const flags = webgl.env();
  flags.set('WEBGL_VERSION', 1);
  flags.set('WEBGL_RENDER_FLOAT32_CAPABLE', true); // OES_texture_float, checked above
  // In Node tfjs registers webgl only in a browser: register it on this context.
  if (!webgl.findBackendFactory('webgl')) {
    webgl.registerBackend('webgl', () => new webgl.MathBackendWebGL(), 2);
  }
  const renderer = rendererName(gl);
  return { renderer, gpu: !/software|llvmpipe|softpipe|swiftshader|swrast/i.test(renderer) };
}

/** The GL renderer; headless-gl's ANGLE hides the one below it, so ask the X server's GL. */
function rendererName(gl: HeadlessGl): string {
  const name = String(gl.getParameter(gl.RENDERER));
  if (!name.includes('ANGLE')) return name;
  return `ANGLE over ${glxRenderer()}`;
}
