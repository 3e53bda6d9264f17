// ClusterError: its own isInstance (not any dtask error's), a cause, and the class kept across
// a real worker process (core's deserializeError rebuilds it through registerErrorClass).
import { ArgumentError, DTaskError } from '@dtask/core';
import { deserializeError, serializeError } from '@dtask/core/plugin';
import { describe, expect, it } from 'vitest';
import { fixture, programsBuilt, runProgram } from './__fixtures__/run-program.js';
import { ClusterError } from './cluster-error.js';

describe('ClusterError', () => {
  it('isInstance is true for a ClusterError only, not for any dtask error', () => {
    expect(ClusterError.isInstance(new ClusterError('auth', 'no'))).toBe(true);
    expect(ClusterError.isInstance(new ArgumentError('bad'))).toBe(false);
    expect(ClusterError.isInstance(new DTaskError('DTASK_OTHER', 'x'))).toBe(false);
    expect(ClusterError.isInstance(new Error('plain'))).toBe(false);
    expect(DTaskError.isInstance(new ClusterError('auth', 'no'))).toBe(true);
  });

  it('carries a cause', () => {
    const cause = new Error('ECONNRESET');
    expect(new ClusterError('connect', 'lost', { cause }).cause).toBe(cause);
    expect(new ClusterError('connect', 'lost').cause).toBeUndefined();
  });

  it('survives serializeError/deserializeError as a ClusterError with reason and cause', () => {
    const sent = new ClusterError('frame', 'bad frame', { cause: new RangeError('too big') });
    const back = deserializeError(structuredClone(serializeError(sent)));
    expect(back).toBeInstanceOf(ClusterError);
    expect(back).toMatchObject({ code: 'DTASK_CLUSTER', reason: 'frame', message: 'bad frame' });
    expect((back as ClusterError).cause).toBeInstanceOf(RangeError);
  });

  it.skipIf(!programsBuilt)(
    'thrown by a task on a real worker process, it comes back as a ClusterError with its code',
    async () => {
      const r = await runProgram([fixture('cluster-error-main.mjs')], 90_000);
      const said = `exit ${r.code}\n${r.stdout}\n${r.stderr}`;
      expect(r.stdout.trim().split('\n'), said).toEqual([
        'instance true true',
        'code DTASK_CLUSTER reason connect',
        'remote true',
        'cause ECONNREFUSED 127.0.0.1:1',
        'done',
      ]);
      expect(r.code, said).toBe(0);
    },
    120_000,
  );
});
