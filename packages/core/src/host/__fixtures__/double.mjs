// A module the dedicated-thread test loads in the thread with `everywhere`.
export function double(x) {
  return x * 2;
}
