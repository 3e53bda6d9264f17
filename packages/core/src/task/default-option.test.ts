import { afterEach, describe, expect, it } from 'vitest';
import { ArgumentError } from '../errors/errors.js';
import type { ArgType } from '../processor/processor.js';
import { Context } from '../registry/context.js';
import { spawn } from '../registry/spawn.js';
import { ProcessScope } from '../scope/process-scope.js';
import { defaultOption } from './default-option.js';
import { getOptions, withOptions } from './with-options.js';

const removers: (() => void)[] = [];
afterEach(() => {
  for (const r of removers.splice(0)) r();
});

/** `defaultOption` that the test undoes afterwards. */
function rule(name: string, match: (f: unknown, t: readonly ArgType[]) => boolean, value: unknown) {
  removers.push(defaultOption(name, match, value));
}

describe('defaultOption', () => {
  it('matches by function and argument types', async () => {
    const f = (x: unknown) => x;
    const g = (x: unknown) => x;
    rule('name', (fn, types) => fn === f && types[0] === 'number', 'f-of-number');
    rule('name', (fn, types) => fn === f && types[0] === Float64Array, 'f-of-floats');
    expect(spawn(f, 1).name).toBe('f-of-number');
    expect(spawn(f, new Float64Array(1)).name).toBe('f-of-floats');
    expect(spawn(f, 'text').name).toBeUndefined();
    expect(spawn(g, 1).name).toBeUndefined();
    const upstream = spawn(() => 1);
    rule('name', (fn, types) => fn === g && types[0] === 'DTask', 'g-of-task');
    expect(spawn(g, upstream).name).toBe('g-of-task');
  });

  it('normalises values like spawn does (scope specifiers become scopes)', async () => {
    const f = () => 1;
    rule('resultScope', (fn) => fn === f, { worker: 1 });
    const t = spawn(f);
    expect(await t).toBe(1);
    expect((await t.fetch({ raw: true })).scope).toEqual(new ProcessScope(1));
  });

  it('precedence: explicit > withOptions > defaultOption', async () => {
    const f = () => getOptions('name', 'unset');
    rule('name', (fn) => fn === f, 'default');
    expect(spawn(f).name).toBe('default');
    expect(withOptions({ name: 'scoped' }, () => spawn(f)).name).toBe('scoped');
    expect(withOptions({ name: 'scoped' }, () => spawn({ name: 'explicit' }, f)).name).toBe(
      'explicit',
    );
    expect(spawn({ name: 'explicit' }, f).name).toBe('explicit');
  });

  it('a matcher that throws is skipped', () => {
    const f = () => 1;
    rule(
      'name',
      () => {
        throw new Error('bad matcher');
      },
      'never',
    );
    rule('name', (fn) => fn === f, 'fine');
    expect(spawn(f).name).toBe('fine');
  });

  it('the remover undoes the rule', () => {
    const f = () => 1;
    const remove = defaultOption('name', (fn) => fn === f, 'temporary');
    expect(spawn(f).name).toBe('temporary');
    remove();
    expect(spawn(f).name).toBeUndefined();
  });

  it('an unknown option name, a bad matcher or a bad value is an ArgumentError', () => {
    expect(() => defaultOption('nmae', () => true, 'x')).toThrow(ArgumentError);
    expect(() => defaultOption('nmae', () => true, 'x')).toThrow(/unknown option/);
    expect(() => defaultOption('name', 'yes' as never, 'x')).toThrow(ArgumentError);
    expect(() => defaultOption('occupancy', () => true, 5)).toThrow(ArgumentError);
  });

  it("a plugin's default applies to its own context's tasks only", async () => {
    const f = (x: number) => x;
    const plugin = {
      name: 'names-tasks',
      setup: (host: { defaultOption(n: string, m: () => boolean, v: unknown): void }) =>
        host.defaultOption('name', () => true, 'from the plugin'),
    };
    await using withPlugin = new Context({ plugins: [plugin] });
    await using without = new Context();
    expect(withPlugin.spawn(f, 1).name).toBe('from the plugin');
    expect(without.spawn(f, 1).name).toBeUndefined();
    expect(spawn(f, 1).name).toBeUndefined(); // the default context
  });
});
