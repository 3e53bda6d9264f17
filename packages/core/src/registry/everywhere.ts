import { createRequire } from 'node:module';
import { isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ArgumentError } from '../errors/errors.js';
import { registerModuleFunctions } from '../travel/function-ref.js';
import type { Context } from './context.js';
import { openDefaultContext } from './default-context.js';
import { programModules } from './program-modules.js';
import { isTypeScriptModule, typescriptLoaderMissing } from './typescript-module.js';

/**
 * Where `everywhere` loads a module from: a `file:` URL (or `URL`) as is, a path relative to
 * the current directory, or a package name resolved from the current directory.
 */
export function resolveModuleSpecifier(specifier: string | URL): string {
  if (specifier instanceof URL) return specifier.href;
  if (/^[a-z][a-z0-9+.-]*:/i.test(specifier) && !/^[a-z]:[\\/]/i.test(specifier)) return specifier;
  if (specifier.startsWith('.') || isAbsolute(specifier)) {
    return pathToFileURL(resolve(specifier)).href;
  }
  try {
    return pathToFileURL(createRequire(join(process.cwd(), 'noop.js')).resolve(specifier)).href;
  } catch {
    return specifier;
  }
}

/** The functions a module namespace offers: its exports, and a CJS module's `default` object's. */
function exportedFunctions(ns: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...ns };
  const d = ns.default;
  if (d && typeof d === 'object') {
    for (const [k, v] of Object.entries(d)) if (!(k in out)) out[k] = v;
  }
  return out;
}

/**
 * Dagger's `@everywhere`: loads `specifier` here and in every current and future worker of
 * `ctx` (default: the default context), and in the workers of every `Context` made afterwards. Functions it exports then travel by reference
 * (module + name) instead of as source, so they may use their module's imports and state.
 * ESM and CJS modules work; `.ts` modules work when the program runs under a TypeScript
 * loader such as `node --import tsx` (the threads plugin registers tsx in its workers, so tsx
 * must be installed in the project); without one it throws `UnsupportedError` saying to
 * install tsx. Relative paths are
 * relative to the current directory; pass `new URL('./m.js', import.meta.url)` to be exact.
 */
export async function everywhere(specifier: string | URL, ctx?: Context): Promise<void> {
  if (!(specifier instanceof URL) && (typeof specifier !== 'string' || specifier === '')) {
    throw new ArgumentError('everywhere(specifier): pass a module path, package name or URL');
  }
  const url = resolveModuleSpecifier(specifier);
  let ns: Record<string, unknown>;
  try {
    ns = exportedFunctions(await import(url));
  } catch (error) {
    if (
      isTypeScriptModule(url) &&
      /ERR_UNKNOWN_FILE_EXTENSION|Unknown file extension/.test(
        String((error as { code?: unknown })?.code ?? '') + String(error),
      )
    ) {
      throw typescriptLoaderMissing(url, 'here', error);
    }
    throw new ArgumentError(
      `everywhere('${String(specifier)}'): cannot load ${url}: ${String(error)}`,
      {
        cause: error,
      },
    );
  }
  registerModuleFunctions(url, ns);
  programModules().set(url, ns);
  // With no default context yet (or after shutdown()) the module is only program-wide: the
  // context the next configure() makes starts with it and loads it in its workers.
  await (ctx ?? openDefaultContext())?.loadModule(url, ns);
}
