import { ArgumentError } from './errors.js';

/** How a plugin's error class is made again after it crossed a thread, process or socket. */
export interface ErrorClassRegistration {
  /** The class's `code` (e.g. `DTASK_CLUSTER`): errors with this code are rebuilt by `rebuild`. */
  code: string;
  /** Own fields beyond `message`, `code` and `cause` that travel with the error (plain data). */
  fields?: readonly string[];
  /** Makes the error again from its message, the `fields` that travelled, and its cause. */
  rebuild(message: string, fields: Record<string, unknown>, cause: unknown): Error;
}

const KEY = Symbol.for('dtask.errorClasses');

/** The program-wide registrations, shared by every copy of core (ESM and CJS). */
function registrations(): Map<string, ErrorClassRegistration> {
  const g = globalThis as unknown as { [KEY]?: Map<string, ErrorClassRegistration> };
  g[KEY] ??= new Map();
  return g[KEY];
}

/**
 * Records `registration` program-wide (the same code again replaces the entry); `reserved`
 * says which codes belong to core. `registerErrorClass` in `serialize-error.ts` is the public
 * face.
 *
 * @throws ArgumentError (`DTASK_ARGUMENT`) for a registration without a string `code` or a
 * `rebuild` function, or for a reserved code.
 */
export function addErrorClass(
  registration: ErrorClassRegistration,
  reserved: (code: string) => boolean = () => false,
): void {
  if (typeof registration !== 'object' || registration === null) {
    throw new ArgumentError('registerErrorClass(registration): registration must be an object');
  }
  const { code, rebuild, fields } = registration;
  if (typeof code !== 'string' || code === '') {
    throw new ArgumentError('registerErrorClass(registration): code must be a non-empty string');
  }
  if (typeof rebuild !== 'function') {
    throw new ArgumentError('registerErrorClass(registration): rebuild must be a function');
  }
  if (
    fields !== undefined &&
    !(Array.isArray(fields) && fields.every((f) => typeof f === 'string'))
  ) {
    throw new ArgumentError('registerErrorClass(registration): fields must be an array of names');
  }
  if (reserved(code)) {
    throw new ArgumentError(
      `registerErrorClass(registration): ${code} is one of core's own codes; give the class a code of its own`,
    );
  }
  registrations().set(code, registration);
}

/** The registration for `code`, if a plugin made one. */
export function registeredErrorClass(code: string): ErrorClassRegistration | undefined {
  return registrations().get(code);
}
