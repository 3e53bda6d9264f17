// The dedicated-thread test's processor, the same class on both sides: the test imports it
// (through sources), the thread's entry too (through the built package).
import { OSProc, Processor } from '@dtask/core';

/** A processor that runs any task whose scope names it (id `tiny:<worker>:0`). */
export class TinyProc extends Processor {
  kind = 'tiny';

  constructor(worker) {
    super();
    this.worker = worker;
    this.id = `tiny:${worker}:0`;
  }

  getParent() {
    return new OSProc(this.worker);
  }

  isCompatible() {
    return true;
  }
}
