import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const dist = new URL('../../dist/index.js', import.meta.url);
const built = existsSync(dist);
if (!built) console.warn('built-names test skipped: build @dtask/core first (npm test does)');

// Regression: bundlers rename self-referencing classes (`_ArgumentError`); the built package
// must still report the real class names.
describe.runIf(built)('error names in the built package', () => {
  it('keep their class names', async () => {
    const core = await import(dist.href);
    for (const name of [
      'ArgumentError',
      'TaskFunctionError',
      'SchedulingError',
      'WorkerLostError',
      'CancelledError',
      'ConcurrencyViolationError',
      'DynamicTaskError',
      'DTaskError',
    ]) {
      expect(new core[name]('x').name).toBe(name);
    }
    const failed = new core.DTaskFailedError({ task: { id: 1 }, rootTask: { id: 1 }, cause: 'x' });
    expect(failed.name).toBe('DTaskFailedError');
  });
});
