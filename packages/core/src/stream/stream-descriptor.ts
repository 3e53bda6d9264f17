/** What a streaming task running on another processor is told about itself. */
export interface StreamDescriptor {
  /** Marks the driver's first argument: the runtime leaves the driver unwrapped (see `step-adapter`). */
  readonly dtaskStream: true;
  /** Its task id: its node on the scheduler's thread. */
  readonly node: number;
  /** The argument positions its streaming inputs fill, in order. */
  readonly inputs: number[];
  /** The task id of the producer of each streaming input, in order. */
  readonly from: number[];
  /** `streamMaxEvals`, if set. */
  readonly maxEvals: number | undefined;
  /**
   * Its `streamBufferSize`: the room of its edges on the worker (an exchange carries
   * `EXCHANGE_EDGES` times as many values at most).
   */
  readonly batch: number;
}
