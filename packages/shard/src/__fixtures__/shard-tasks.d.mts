// Types of shard-tasks.mjs, for the tests.
export interface Piece {
  total: number;
  count: number;
  madeOn: string;
  pid: number;
  seenOn: string[];
}
export declare const makePiece: () => Piece;
export declare function addInto(piece: Piece, x: number): string;
export declare const totalOf: (piece: Piece) => number;
export declare function addThenHang(piece: Piece, x: number, flags: Int32Array): number;
export declare function addThenWait(piece: Piece, x: number, ms: number): Promise<number>;
export declare function livePieces(): number;
export declare function slowPiece(): Promise<Piece>;
export declare function brokenPiece(): Piece;
