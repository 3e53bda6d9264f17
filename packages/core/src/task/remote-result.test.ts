import { describe, expect, it } from 'vitest';
import type { Processor } from '../processor/processor.js';
import { isRemoteResult, RemoteResult } from './remote-result.js';

describe('isRemoteResult', () => {
  const proc = { id: 'p' } as unknown as Processor;
  const remote = new RemoteResult(proc, () => Promise.resolve(1), 8);

  it('is true for a RemoteResult and agrees with instanceof on everything else', () => {
    expect(isRemoteResult(remote)).toBe(true);
    const others: unknown[] = [
      undefined,
      null,
      0,
      1.5,
      'x',
      true,
      10n,
      Symbol('s'),
      {},
      [],
      new Float64Array(2),
      () => 0,
      Object.create(null),
      { processor: proc, pull: () => 0, bytes: 8 }, // looks like one, is not one
      Promise.resolve(1),
    ];
    for (const v of others) {
      expect(isRemoteResult(v)).toBe(false);
      expect(isRemoteResult(v)).toBe(v instanceof RemoteResult);
    }
  });
});
