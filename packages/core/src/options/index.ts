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
} from './check-options.js';
