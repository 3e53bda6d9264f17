/** Returned by `EdgeBuffer.poll` when nothing is buffered. */
export const EMPTY: unique symbol = Symbol('empty');

/** The first ring's length: a power of two. */
const MIN_RING = 16;

/** A ring of `n` slots holding `undefined`, so that it takes any value without changing kind. */
function newRing(n: number): unknown[] {
  return new Array<unknown>(n).fill(undefined);
}

/**
 * The bounded FIFO of one streaming edge, producer to consumer, on the thread that holds it.
 * `offer` refuses a value when `capacity` values are waiting (the producer then waits for
 * `room`, which comes once half the buffer is free: backpressure, never loss); the producer
 * `end`s it (the consumer drains what is left), the consumer `drop`s it (what is left is
 * discarded and the producer stops sending).
 */
export class EdgeBuffer {
  /**
   * A ring: `size` values from `head`, wrapping at the ring's length (a power of two, grown by
   * doubling as values wait, up to the first one holding `capacity`). Values in and out cost
   * no allocation, where a growing array sliced now and then cost about 50 bytes per value.
   */
  private ring: unknown[] = newRing(MIN_RING);
  private mask = MIN_RING - 1;
  private head = 0;
  private size = 0;
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
    return this.size;
  }

  /** Nothing waits and nothing more will come. */
  get exhausted(): boolean {
    return this.ended && this.length === 0;
  }

  /** Adds `value` unless full: true when taken (or discarded because the consumer is gone). */
  offer(value: unknown): boolean {
    if (this.dropped || this.switched) return true;
    const size = this.size;
    if (size >= this.capacity) return false;
    if (size > this.mask) this.grow();
    this.ring[(this.head + size) & this.mask] = value;
    this.size = size + 1;
    if (this.dataWaiter !== undefined) {
      // Waking the consumer for each value would make every stage wait once per value; it
      // wakes once a few are in, or on the next turn of the event loop.
      if (size + 1 >= this.wakeAt) this.wakeData();
      else if (!this.wakeScheduled) {
        this.wakeScheduled = true;
        setImmediate(this.lateWake);
      }
    }
    return true;
  }

  /** The oldest value, or `EMPTY`. */
  poll(): unknown {
    const size = this.size;
    if (size === 0) return EMPTY;
    const head = this.head;
    const v = this.ring[head];
    this.ring[head] = undefined;
    this.head = (head + 1) & this.mask;
    this.size = size - 1;
    // A waiting producer is woken once half the buffer is free, not for each value read: it
    // then makes values in a run instead of one per read.
    const w = this.roomWaiter;
    if (w !== undefined && size - 1 <= this.lowWater) {
      this.roomWaiter = undefined;
      w();
    }
    return v;
  }

  /** Up to `max` of the oldest values. */
  take(max: number): unknown[] {
    const n = Math.min(max, this.size);
    const out = new Array<unknown>(n);
    const ring = this.ring;
    const mask = this.mask;
    let head = this.head;
    for (let i = 0; i < n; i++) {
      out[i] = ring[head];
      ring[head] = undefined;
      head = (head + 1) & mask;
    }
    this.head = head;
    this.size -= n;
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
    this.ring = newRing(MIN_RING);
    this.mask = MIN_RING - 1;
    this.head = 0;
    this.size = 0;
    this.wakeRoom();
    this.wakeData();
  }

  /** Wakes whoever waits on this edge (a task being stopped re-checks why it waits). */
  wake(): void {
    this.wakeRoom();
    this.wakeData();
  }

  /** Doubles the ring, its values moved to the front in order. */
  private grow(): void {
    const old = this.ring;
    const ring = newRing(old.length * 2);
    for (let i = 0; i < this.size; i++) ring[i] = old[(this.head + i) & this.mask];
    this.ring = ring;
    this.mask = ring.length - 1;
    this.head = 0;
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
