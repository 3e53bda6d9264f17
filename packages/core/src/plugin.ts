// @dtask/core/plugin: the kit for plugin authors: checking a plugin's plain options with the
// messages users see, and registering a plugin's error classes so they survive the wire.

export type { ErrorClassRegistration } from './errors/error-classes.js';
export { registerErrorClass } from './errors/serialize-error.js';
export {
  checkOptions,
  type FieldCheck,
  isIntegerAtLeast,
  isNumberAtLeast,
  isOneOf,
  isPlainObject,
  isStringArray,
  type OptionsShape,
  rule,
  unknownOption,
} from './options/index.js';
