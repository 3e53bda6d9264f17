import { UnsupportedError } from '../errors/errors.js';

/** True when `url` names a TypeScript module (`.ts`, `.mts`, `.cts`, `.tsx`). */
export function isTypeScriptModule(url: string): boolean {
  if (!URL.canParse(url)) return /\.[cm]?tsx?$/.test(url);
  return /\.[cm]?tsx?$/.test(new URL(url).pathname);
}

/**
 * The error for a TypeScript module that cannot load because no TypeScript loader is there:
 * `where` is 'here' (the calling thread) or a worker's name. Says to install tsx.
 */
export function typescriptLoaderMissing(
  url: string,
  where: string,
  cause: unknown,
): UnsupportedError {
  return new UnsupportedError(
    `everywhere: cannot load the TypeScript module ${url} ${where === 'here' ? 'here' : `in ${where}`}: ` +
      'no TypeScript loader. Install tsx in your project (npm install --save-dev tsx) and run the ' +
      'program with `node --import tsx main.ts` (worker threads register tsx themselves), or load ' +
      `the compiled .js module instead. (${String(cause)})`,
    { cause },
  );
}
