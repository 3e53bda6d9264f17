import { describe, expect, it } from 'vitest';
import { ExactScope } from '../scope/exact-scope.js';
import { NO_OPTIONS, type TaskOptions } from '../task/options.js';
import { fromPlainOptions, fromRunOptions, toPlainOptions, toRunOptions } from './plain-options.js';
import { IN_PLACE_RUN } from './protocol.js';

describe('plain options', () => {
  it('leaves out options of which nothing travels (no empty object per message)', () => {
    const stayHere: TaskOptions = {
      priority: 3,
      signal: new AbortController().signal,
      checkpoint: () => undefined,
    };
    expect(toPlainOptions(NO_OPTIONS)).toBeUndefined();
    expect(toPlainOptions({})).toBeUndefined();
    expect(toPlainOptions(stayHere)).toBeUndefined();
    expect(toRunOptions(stayHere)).toBeUndefined();
    expect(toRunOptions({ scope: new ExactScope('w1'), priority: 1 })).toBeUndefined();
    // What the receiver makes of nothing: no options.
    expect(fromPlainOptions(toPlainOptions(stayHere))).toBe(NO_OPTIONS);
  });

  it('sends what travels and gets the same options back', () => {
    const options: TaskOptions = {
      name: 'tile',
      meta: true,
      occupancy: 0.5,
      inPlace: true,
      inPlaceArgs: [1],
      returnArgs: { indices: [0], apply: () => undefined },
      resultScope: new ExactScope('w1'),
      priority: 2,
    };
    const plain = toPlainOptions(options);
    expect(plain).toEqual({
      name: 'tile',
      meta: true,
      occupancy: 0.5,
      inPlace: true,
      inPlaceArgs: [1],
      returnArgs: [0],
      resultScope: expect.anything(),
    });
    const back = fromPlainOptions(plain);
    expect(back).toMatchObject({ name: 'tile', meta: true, occupancy: 0.5, inPlace: true });
    expect(back.returnArgs?.indices).toEqual([0]);
    expect(back.resultScope).toBeInstanceOf(ExactScope);
    expect((back.resultScope as ExactScope).id).toBe('w1');
    // A run message leaves the scopes out but keeps the rest.
    expect(toRunOptions({ ...options, scope: new ExactScope('w2') })).toEqual(plain);
  });

  it('sends a task whose only travelling option is inPlace as a number, read back as options', () => {
    // A datadeps region's task over shared memory: its scope and priority stay here.
    const regionTask: TaskOptions = { inPlace: true, scope: new ExactScope('w1'), priority: 4 };
    expect(toRunOptions(regionTask)).toBe(IN_PLACE_RUN);
    expect(toRunOptions({ inPlace: true })).toBe(IN_PLACE_RUN);
    expect(fromRunOptions(IN_PLACE_RUN)).toEqual({ inPlace: true });
    expect(fromRunOptions(undefined)).toBe(NO_OPTIONS);
    // With anything else that travels, the object as before.
    const named = toRunOptions({ inPlace: true, name: 'tile' });
    expect(named).toEqual({ inPlace: true, name: 'tile' });
    expect(fromRunOptions(named)).toEqual({ inPlace: true, name: 'tile' });
    expect(toRunOptions({ inPlace: false })).toBeUndefined();
  });
});
