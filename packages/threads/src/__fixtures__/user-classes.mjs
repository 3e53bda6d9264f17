// A plain program (`node user-classes.mjs`): a class loaded with everywhere() travels to a
// worker thread and back as an instance of that class; an unregistered one is a typed error.
import { configure, everywhere, scope, shutdown, spawn } from '@dtask/core';
import { threads } from '@dtask/threads';
import { describePoint, makePoint, Point } from '../../../core/src/task/__fixtures__/shapes.mjs';

await configure({ plugins: [threads({ count: 2 })] }).ready();
await everywhere(new URL('../../../core/src/task/__fixtures__/shapes.mjs', import.meta.url));
const onThread2 = { scope: scope({ worker: 1, thread: 2 }) };

console.log('argument:', await spawn(onThread2, describePoint, new Point(3, 4)));
const back = await spawn(onThread2, makePoint, 6, 8);
console.log('result:', back instanceof Point, back.norm());

class Celsius {
  constructor(degrees) {
    this.degrees = degrees;
  }
}
try {
  await spawn(onThread2, (t) => t.degrees, new Celsius(21));
  console.log('no error');
} catch (error) {
  console.log(error.code, error.cause.code, error.cause.message.split(',')[0]);
}
await shutdown();
