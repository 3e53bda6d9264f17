// Reads a map's function, given as its source text, as an arithmetic expression of its
// parameters, so that an element-wise chain that maps it can run as a SIMD program: only what
// the SIMD programs compute exactly as JavaScript does (+ - * / on numbers, unary minus,
// parentheses, number literals, Math.sqrt, Math.abs, Math.min and Math.max of two values).
// Anything else (another call, a variable, `**`, a statement) is not arithmetic: the chain
// then runs as its JavaScript loop.

/** A node of an arithmetic expression of a function's parameters. */
export type ArithmeticNode =
  | { kind: 'param'; index: number }
  | { kind: 'number'; value: number }
  | {
      kind: 'op';
      op: 'add' | 'sub' | 'mul' | 'div' | 'min' | 'max';
      left: ArithmeticNode;
      right: ArithmeticNode;
    }
  | { kind: 'unary'; op: 'neg' | 'sqrt' | 'abs'; arg: ArithmeticNode };

const TOKEN =
  /\s*(?:(=>|Math\.(?:sqrt|abs|min|max)\b|[A-Za-z_$][\w$]*|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[-+*/(),{};])|(\S))/gy;

function tokens(source: string): string[] | undefined {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  for (;;) {
    const start = TOKEN.lastIndex;
    const m = TOKEN.exec(source);
    if (m === null) {
      // Only trailing white space may be left.
      return source.slice(start).trim() === '' ? out : undefined;
    }
    if (m[2] !== undefined) return undefined;
    out.push(m[1]);
  }
}

const BINARY = { '+': 'add', '-': 'sub', '*': 'mul', '/': 'div' } as const;
const UNARY_CALLS: Record<string, 'sqrt' | 'abs'> = { 'Math.sqrt': 'sqrt', 'Math.abs': 'abs' };
const BINARY_CALLS: Record<string, 'min' | 'max'> = { 'Math.min': 'min', 'Math.max': 'max' };
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const RESERVED = new Set(['function', 'return', 'Math', 'this', 'arguments', 'new', 'typeof']);

/**
 * The body of `source` (an arrow or function expression of plain parameters whose body is
 * one arithmetic expression, or `{ return` one `}`) as an arithmetic expression of its
 * parameters; `undefined` where it is anything else.
 */
export function arithmeticOf(source: string): ArithmeticNode | undefined {
  const t = tokens(source);
  if (t === undefined) return undefined;
  let at = 0;
  const peek = () => t[at];
  const take = (want?: string) => {
    const x = t[at];
    if (x === undefined || (want !== undefined && x !== want)) throw new Error('no');
    at++;
    return x;
  };
  const params: string[] = [];
  const paramList = () => {
    take('(');
    while (peek() !== ')') {
      const name = take();
      if (!IDENTIFIER.test(name) || RESERVED.has(name)) throw new Error('no');
      params.push(name);
      if (peek() === ',') take(',');
      else break;
    }
    take(')');
  };
  const primary = (): ArithmeticNode => {
    const x = take();
    if (x === '(') {
      const e = expression();
      take(')');
      return e;
    }
    if (x === '-') return { kind: 'unary', op: 'neg', arg: primary() };
    if (x === '+') throw new Error('no'); // unary plus converts; keep to numbers as given
    if (x in UNARY_CALLS) {
      take('(');
      const arg = expression();
      take(')');
      return { kind: 'unary', op: UNARY_CALLS[x], arg };
    }
    if (x in BINARY_CALLS) {
      take('(');
      const left = expression();
      take(',');
      const right = expression();
      take(')');
      return { kind: 'op', op: BINARY_CALLS[x], left, right };
    }
    // A leading 0 before a digit is a legacy octal literal in sloppy code: not read here.
    if (/^0\d/.test(x)) throw new Error('no');
    if (/^[\d.]/.test(x)) return { kind: 'number', value: Number(x) };
    const index = params.indexOf(x);
    if (index < 0) throw new Error('no');
    return { kind: 'param', index };
  };
  const term = (): ArithmeticNode => {
    let left = primary();
    while (peek() === '*' || peek() === '/') {
      const op = BINARY[take() as '*' | '/'];
      left = { kind: 'op', op, left, right: primary() };
    }
    return left;
  };
  const expression = (): ArithmeticNode => {
    let left = term();
    while (peek() === '+' || peek() === '-') {
      const op = BINARY[take() as '+' | '-'];
      left = { kind: 'op', op, left, right: term() };
    }
    return left;
  };
  const body = (): ArithmeticNode => {
    if (peek() !== '{') return expression();
    take('{');
    take('return');
    const e = expression();
    if (peek() === ';') take(';');
    take('}');
    return e;
  };
  try {
    let e: ArithmeticNode;
    if (peek() === 'function') {
      take('function');
      if (peek() !== '(') take();
      paramList();
      if (peek() !== '{') return undefined;
      e = body();
    } else {
      if (peek() === '(') paramList();
      else {
        const name = take();
        if (!IDENTIFIER.test(name) || RESERVED.has(name)) return undefined;
        params.push(name);
      }
      take('=>');
      e = body();
    }
    return at === t.length ? e : undefined;
  } catch {
    return undefined;
  }
}
