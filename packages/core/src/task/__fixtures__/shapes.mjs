// Classes loaded with everywhere() by the class-instance tests of @dtask/threads and
// @dtask/cluster and threads' user-classes program: their instances travel as instances.

/** A point with a method: arrives as a Point where this module is loaded. */
export class Point {
  constructor(x, y) {
    this.x = x;
    this.y = y;
  }
  norm() {
    return Math.hypot(this.x, this.y);
  }
}

/** A segment of two points (instances nested in an instance). */
export class Segment {
  constructor(a, b) {
    this.a = a;
    this.b = b;
  }
  length() {
    return Math.hypot(this.a.x - this.b.x, this.a.y - this.b.y);
  }
}

/** Runs on a worker: a Point made there. */
export const makePoint = (x, y) => new Point(x, y);

/** Runs on a worker: what arrived, and whether it is a Point there. */
export const describePoint = (p) => [p instanceof Point, p.norm(), p.constructor.name];

/** Runs on a worker: the segments of a path (an array of Points) as Segments. */
export const segmentsOf = (points) => points.slice(1).map((p, i) => new Segment(points[i], p));
