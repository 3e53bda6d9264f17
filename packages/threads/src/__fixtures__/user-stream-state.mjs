// A plain program (`node user-stream-state.mjs`): a streaming step keeps state across its calls
// in a `mutable` (a running total), and emits only every fifth step: the steps that return
// `undefined` send nothing to a `streamValues` reader.
import { configure, mutable, shutdown, spawn, spawnStreaming, streamValues } from '@dtask/core';
import { threads } from '@dtask/threads';

await configure({ plugins: [threads({ count: 2 })] }).ready();
const state = mutable(() => ({ total: 0, steps: 0 }));
const totals = spawnStreaming(() => {
  const numbers = spawn(async function* () {
    for (let i = 1; i <= 20; i++) yield i;
  });
  // Each step adds its number to the state; every fifth step emits the total so far.
  return spawn(
    (x, s) => {
      s.total += x;
      s.steps += 1;
      return s.steps % 5 === 0 ? s.total : undefined;
    },
    numbers,
    state,
  );
});
const seen = [];
for await (const total of streamValues(totals)) seen.push(total);
await totals;
const final = await state.fetch();
console.log('read:', JSON.stringify(seen));
console.log(
  'state:',
  JSON.stringify(final),
  'on',
  state.processor.id.startsWith('thread:1:') ? 'a thread' : '?',
);
await shutdown();
