import { describe, expect, it } from 'vitest';
import { ExactScope } from '../scope/exact-scope.js';
import { ProcessorTypeScope } from '../scope/processor-type-scope.js';
import { AnyScope } from '../scope/scope.js';
import { UnionScope } from '../scope/union-scope.js';
import { DeviceProc } from './device-proc.js';
import { OSProc } from './os-proc.js';
import { ThreadProc } from './thread-proc.js';

const MARK = Symbol('marked');

class FakeDevice extends DeviceProc {
  readonly kind = 'fake-device';
  constructor(worker: number, device: number) {
    super('fake-device', worker, device);
  }
  protected claims(f: unknown): boolean {
    return typeof f === 'function' && MARK in f;
  }
}

describe('DeviceProc', () => {
  const proc = new FakeDevice(2, 1);
  const plain = () => 1;
  const marked = Object.assign(() => 1, { [MARK]: true });

  it('is named <kind>:<worker>:<device>, a child of its process, not default-enabled', () => {
    expect(proc.id).toBe('fake-device:2:1');
    expect(proc.getParent()).toEqual(new OSProc(2));
    expect(proc.defaultEnabled).toBe(false);
  });

  it('runs functions it claims and tasks whose scope names it or its kind, not any others', () => {
    expect(proc.isCompatible({}, marked)).toBe(true);
    expect(proc.isCompatible({}, plain)).toBe(false);
    expect(proc.isCompatible({ scope: new ExactScope(proc) }, plain)).toBe(true);
    expect(proc.isCompatible({ scope: new ExactScope(new FakeDevice(2, 0)) }, plain)).toBe(false);
    expect(proc.isCompatible({ scope: new ProcessorTypeScope('fake-device') }, plain)).toBe(true);
    expect(proc.isCompatible({ computeScope: new ProcessorTypeScope('fake-device') }, plain)).toBe(
      true,
    );
    expect(proc.isCompatible({ scope: new ExactScope(new ThreadProc(2, 1)) }, plain)).toBe(false);
    expect(proc.isCompatible({ scope: new AnyScope() }, plain)).toBe(false);
    const either = new UnionScope(new ExactScope(new ThreadProc(2, 1)), new ExactScope(proc));
    expect(proc.isCompatible({ scope: either }, plain)).toBe(true);
  });
});
