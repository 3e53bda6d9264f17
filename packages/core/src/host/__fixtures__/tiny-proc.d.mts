import { Processor } from '@dtask/core';

export declare class TinyProc extends Processor {
  readonly kind: string;
  readonly id: string;
  readonly worker: number;
  constructor(worker: number);
}
