/** What an accelerator's thread gets at start besides core's (`DedicatedThreadData.data`). */
export interface AccelThreadData {
  /** The accelerator's number in its process. */
  index: number;
  /** Its device memory in bytes. */
  memory: number;
  /** `DeviceStats` slots shared with the main thread. */
  stats: Float64Array;
}

/** What an accelerator's thread reports once it serves (`describe()` shows it). */
export interface AccelReport {
  /** The processor's id, `accel:<worker>:<index>`. */
  id: string;
  /** Its device memory in bytes. */
  memory: number;
}
