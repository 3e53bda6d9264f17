/** Bytes read per call when no large frame is being filled (Node's own read size). */
const SCRATCH_BYTES = 64 * 1024;

/**
 * Lets a socket read into memory a `Link` chooses (Node's `onread`), so the bytes of a large
 * frame land in that frame's own buffer as the kernel copies them: no second copy on the
 * receiving side, which on loopback costs as much as the transfer itself. Only sockets made by
 * `net.connect` take `onread` (not accepted ones, not TLS), so a link reads this way on the side
 * that opened it. Made before the socket; the link attaches itself once it wraps the socket,
 * which is before any byte can arrive (the socket is not yet connected).
 */
export class DirectReads {
  private readonly scratch = Buffer.allocUnsafeSlow(SCRATCH_BYTES);
  private target: (scratch: Buffer) => Buffer = (scratch) => scratch;
  private sink: ((n: number, into: Uint8Array) => void) | undefined;

  /** The `onread` option to give `net.connect`. */
  readonly onread = {
    buffer: (): Buffer => this.target(this.scratch),
    callback: (n: number, into: Uint8Array): boolean => {
      this.sink?.(n, into);
      return true; // keep reading
    },
  };

  /**
   * Connects the reads to a link: `target` says where to read next (given the scratch buffer),
   * `sink` takes each read's `n` bytes in the memory `target` chose.
   */
  attach(target: (scratch: Buffer) => Buffer, sink: (n: number, into: Uint8Array) => void): void {
    this.target = target;
    this.sink = sink;
  }
}
