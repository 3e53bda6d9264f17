// Loaded with everywhere() by everywhere-main.mjs: a function that travels by reference.
export function double(x) {
  return 2 * x;
}
