// Types of shapes.mjs, for the tests.
export declare class Point {
  x: number;
  y: number;
  constructor(x: number, y: number);
  norm(): number;
}
export declare class Segment {
  a: Point;
  b: Point;
  constructor(a: Point, b: Point);
  length(): number;
}
export declare const makePoint: (x: number, y: number) => Point;
export declare const describePoint: (p: Point) => [boolean, number, string];
export declare const segmentsOf: (points: Point[]) => Segment[];
