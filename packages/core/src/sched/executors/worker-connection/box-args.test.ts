// A task's arguments as they leave for another runtime: strided views in their compact form
// (view-form.ts), but one that appears twice (it must arrive as one object) and one that a
// copy-out writes back; the task's own argument list is never changed.
import { describe, expect, it } from 'vitest';
import { expandView } from '../../../travel/view-form.js';
import { boxArgs } from './box-args.js';

const data = new Float64Array(new SharedArrayBuffer(8 * 16));
const view = (offset: number) => ({ data, shape: [2, 2], strides: [4, 1], offset });

describe('boxArgs', () => {
  it('sends strided views compacted, in a copy of the argument list', () => {
    const args = [view(0), 7, view(5)];
    const sent = boxArgs(1, args, 'w1') as unknown[];
    expect(sent).not.toBe(args);
    expect(args[0]).toEqual(view(0)); // the task's own arguments stay as they were
    expect(Array.isArray(sent[0]) && Array.isArray(sent[2])).toBe(true);
    expect(sent[1]).toBe(7);
    expect(sent.map(expandView)).toEqual(args);
  });

  it('sends a view that appears twice, or is copied back, as it is', () => {
    const twice = view(0);
    const args = [twice, twice];
    expect(boxArgs(1, args, 'w1')).toBe(args);
    const back = [view(0), view(1)];
    const sent = boxArgs(1, back, 'w1', [0]) as unknown[];
    expect(sent[0]).toBe(back[0]);
    expect(expandView(sent[1])).toEqual(back[1]);
  });
});
