/** Returned by `EdgeBuffer.poll` when nothing is buffered. */
export const EMPTY: unique symbol = Symbol('empty');

/**
 * The bounded FIFO of one streaming edge, producer to consumer, on the thread that holds it.
 * `offer` refuses a value when `capacity` values are waiting (the producer then waits for
 * `room`, which comes once half the buffer is free: backpressure, never loss); the producer
 * `end`s it (the consumer drains what is left), the consumer `drop`s it (what is left is
 * discarded and the producer stops sending).
 */
export class EdgeBuffer {
  private items: unknown[] = [];
  private head = 0;
  /** The producer sends no more. */
  ended = false;
  /** The consumer reads no more. */
  dropped = false;
  /**
   * The producer and consumer run on the same thread and now pass values there: this edge takes
   * no more (it is ended; the consumer reads what is left, then reads on that thread).
   */
  switched = false;
  /** The task id of the consumer, when it is a streaming task. */
  consumer: number | undefined = undefined;
  private dataWaiter: (() => void) | undefined;
  private roomWaiter: (() => void) | undefined;
  /** Values that wake a waiting consumer at once; fewer wake it on the next turn. */
  private readonly wakeAt: number;
  private wakeScheduled = false;
  /** Values waiting at most when a waiting producer is woken. */
  private readonly lowWater: number;

  constructor(readonly capacity: number) {
    this.wakeAt = Math.min(64, capacity);
    this.lowWater = capacity >> 1;
  }

  /** Values waiting. */
  get length(): number {
    return this.items.length - this.head;
  }

  /** Nothing waits and nothing more will come. */
  get exhausted(): boolean {
    return this.ended && this.length === 0;
  }

  /** Adds `value` unless full: true when taken (or discarded because the consumer is gone). */
  offer(value: unknown): boolean {
    if (this.dropped || this.switched) return true;
    if (this.items.length - this.head >= this.capacity) return false;
    this.items.push(value);
    if (this.dataWaiter !== undefined) {
      // Waking the consumer for each value would make every stage wait once per value; it
      // wakes once a few are in, or on the next turn of the event loop.
      if (this.items.length - this.head >= this.wakeAt) this.wakeData();
      else if (!this.wakeScheduled) {
        this.wakeScheduled = true;
        setImmediate(this.lateWake);
      }
    }
    return true;
  }

  /** The oldest value, or `EMPTY`. */
  poll(): unknown {
    if (this.head >= this.items.length) return EMPTY;
    const v = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    // A waiting producer is woken once half the buffer is free, not for each value read: it
    // then makes values in a run instead of one per read.
    const w = this.roomWaiter;
    if (w !== undefined && this.length <= this.lowWater) {
      this.roomWaiter = undefined;
      w();
    }
    return v;
  }

  /** Up to `max` of the oldest values. */
  take(max: number): unknown[] {
    const n = Math.min(max, this.length);
    const out = this.items.slice(this.head, this.head + n);
    for (let i = 0; i < n; i++) this.items[this.head + i] = undefined;
    this.head += n;
    if (this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    if (n > 0) this.wakeRoom();
    return out;
  }

  /** Resolves once a value is waiting or the edge is ended or dropped. */
  data(): Promise<void> {
    if (this.length > 0 || this.ended || this.dropped) return Promise.resolve();
    return new Promise((resolve) => {
      const previous = this.dataWaiter;
      this.dataWaiter = previous
        ? () => {
            previous();
            resolve();
          }
        : resolve;
    });
  }

  /** Resolves once there is room or the consumer is gone. */
  room(): Promise<void> {
    if (this.length < this.capacity || this.dropped) return Promise.resolve();
    return new Promise((resolve) => {
      const previous = this.roomWaiter;
      this.roomWaiter = previous
        ? () => {
            previous();
            resolve();
          }
        : resolve;
    });
  }

  /** The producer is done: the consumer reads what is left, then sees the end. */
  end(): void {
    this.ended = true;
    this.wakeData();
  }

  /** Values from now on pass on the consumer's thread: this edge takes no more and ends. */
  switchOff(): void {
    this.switched = true;
    this.end();
  }

  /** The consumer is gone: what waits is discarded and the producer is told. */
  drop(): void {
    this.dropped = true;
    this.items = [];
    this.head = 0;
    this.wakeRoom();
    this.wakeData();
  }

  /** Wakes whoever waits on this edge (a task being stopped re-checks why it waits). */
  wake(): void {
    this.wakeRoom();
    this.wakeData();
  }

  private readonly lateWake = (): void => {
    this.wakeScheduled = false;
    this.wakeData();
  };

  private wakeData(): void {
    const w = this.dataWaiter;
    this.dataWaiter = undefined;
    w?.();
  }

  private wakeRoom(): void {
    const w = this.roomWaiter;
    this.roomWaiter = undefined;
    w?.();
  }
}
