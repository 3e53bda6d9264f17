import { spawn } from '../../registry/spawn.js';

/** A task on the main thread that resolves to `value` after `ms` milliseconds. */
export const after = <T>(ms: number, value: T) =>
  spawn(
    async (m: number, v: T) => {
      await new Promise((r) => setTimeout(r, m));
      return v;
    },
    ms,
    value,
  );
