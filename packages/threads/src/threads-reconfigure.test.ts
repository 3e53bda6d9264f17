// A second configure() replaces the default context and carries the modules
// loaded with everywhere() over: its threads load them, so module functions still travel by
// reference instead of failing with "not loaded here".
import { configure, everywhere, scope, shutdown, spawn } from '@dtask/core';
import { afterEach, describe, expect, it } from 'vitest';
import { TASKS_URL, type Tasks } from './__fixtures__/harness.js';
import { threads } from './index.js';

afterEach(async () => {
  await shutdown();
});

describe('configure() twice', () => {
  it('keeps the everywhere modules: the new threads run module functions', async () => {
    await configure({ plugins: [threads({ count: 1 })] }).ready();
    await everywhere(TASKS_URL);
    const tasks = (await import('./__fixtures__/tasks.mjs')) as Tasks;
    const onThread2 = { scope: scope({ worker: 1, thread: 2 }) };
    expect(await spawn(onThread2, tasks.whereAmI)).toBe('thread:1:2');

    const second = configure({ plugins: [threads({ count: 2 })] });
    await second.ready();
    expect(second.modules.has(TASKS_URL.href)).toBe(true);
    expect(await spawn(onThread2, tasks.whereAmI)).toBe('thread:1:2');
    const onThread3 = { scope: scope({ worker: 1, thread: 3 }) };
    expect(await spawn(onThread3, tasks.countCall)).toEqual(['thread:1:3', 1]);
  });
});
