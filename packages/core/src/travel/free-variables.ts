import { createRequire } from 'node:module';
import type {
  AnonymousFunctionDeclaration,
  AnyNode,
  ArrowFunctionExpression,
  FunctionDeclaration,
  FunctionExpression,
  Node,
  Pattern,
  Statement,
} from 'acorn';

type Acorn = typeof import('acorn');
let acorn: Acorn | undefined;

/** acorn, loaded on first use: programs that never ship a function never load a parser. */
function parse(...args: Parameters<Acorn['parse']>): ReturnType<Acorn['parse']> {
  acorn ??= createRequire(import.meta.url)('acorn') as Acorn;
  return acorn.parse(...args);
}

/** What a function's source text turned out to be. */
export type FunctionSourceKind = 'function' | 'method' | 'class';

/** The result of `analyzeFunctionSource`. */
export interface FunctionSourceAnalysis {
  /** `function`: a function or arrow expression; `method`: shorthand, getter or setter. */
  kind: FunctionSourceKind;
  /** Identifiers the source uses but does not bind, in order of first use. */
  freeVariables: string[];
}

/**
 * Parses a function's source text (as `Function.prototype.toString` gives it) the way
 * `compileFunction` will compile it elsewhere — as `(source)`, else as the single member of
 * `({ source })` for method shorthand — and lists the identifiers it uses without binding
 * them. Called by `checkFunctionTravel`. Throws `SyntaxError` when the text is not a single
 * function, arrow, method, getter, setter or class.
 *
 * Scoping follows strict-mode (module) rules: a function declared inside a block is bound
 * only in that block. `this`, `super` and `new.target` are not identifiers; `arguments` is
 * bound inside every non-arrow function, so an outermost arrow that uses it reports it (it
 * would be the enclosing function's `arguments`). `import.meta` is a `SyntaxError`: it exists
 * only in modules, and `compileFunction`'s `new Function` rejects it too. `typeof x` counts
 * as a use of `x`.
 */
export function analyzeFunctionSource(source: string): FunctionSourceAnalysis {
  const { kind, node } = parseFunctionSource(source);
  const free = new Set<string>();
  new Resolver(free).visit(node, undefined);
  return { kind, freeVariables: [...free] };
}

/** The free identifiers of a function's source text; see `analyzeFunctionSource`. */
export function freeVariables(source: string): string[] {
  return analyzeFunctionSource(source).freeVariables;
}

/** One statement parsed from `prefix + source + suffix`, or the parse error. */
function parseWrapped(
  prefix: string,
  source: string,
  suffix: string,
): Statement | { error: string; at: number } {
  try {
    const program = parse(`${prefix}${source}${suffix}`, {
      ecmaVersion: 'latest',
      sourceType: 'script',
    });
    if (program.body.length === 1) return program.body[0] as Statement;
    return { error: 'more than one statement', at: source.length };
  } catch (error) {
    const pos = (error as { pos?: number }).pos;
    return { error: (error as Error).message, at: (pos ?? 0) - prefix.length };
  }
}

function parseFunctionSource(source: string): { kind: FunctionSourceKind; node: AnyNode } {
  // The newline keeps a trailing line comment from swallowing the closing bracket.
  const asExpression = parseWrapped('(', source, '\n)');
  if ('type' in asExpression && asExpression.type === 'ExpressionStatement') {
    const e = asExpression.expression;
    if (e.type === 'FunctionExpression' || e.type === 'ArrowFunctionExpression') {
      return { kind: 'function', node: e };
    }
    if (e.type === 'ClassExpression') return { kind: 'class', node: e };
  }
  const asMember = parseWrapped('({', source, '\n})');
  if ('type' in asMember && asMember.type === 'ExpressionStatement') {
    const e = asMember.expression;
    const only = e.type === 'ObjectExpression' && e.properties.length === 1 && e.properties[0];
    if (only && only.type === 'Property' && (only.method || only.kind !== 'init')) {
      // The member, not just its function: a computed key is evaluated when the source is.
      return { kind: 'method', node: only };
    }
  }
  // Report the attempt that read further: the other one likely failed on its wrapping.
  const failures = [asExpression, asMember].filter((r) => 'error' in r);
  failures.sort((a, b) => b.at - a.at);
  const why = failures[0]?.error ?? 'not a function';
  const shown = source.length > 60 ? `${source.slice(0, 60)}...` : source;
  throw new SyntaxError(`Not the source text of a function, method or class (${why}): ${shown}`);
}

/** A lexical scope: the names it binds and the scope around it. */
interface Scope {
  readonly names: ReadonlySet<string>;
  readonly parent: Scope | undefined;
}

function scopeOf(parent: Scope | undefined, names: Iterable<string>): Scope {
  return { names: new Set(names), parent };
}

function isBound(name: string, scope: Scope | undefined): boolean {
  for (let s = scope; s !== undefined; s = s.parent) if (s.names.has(name)) return true;
  return false;
}

/** Adds the names a binding pattern declares. */
function patternNames(pattern: Pattern, out: string[]): void {
  switch (pattern.type) {
    case 'Identifier':
      out.push(pattern.name);
      return;
    case 'ObjectPattern':
      for (const p of pattern.properties) {
        patternNames(p.type === 'RestElement' ? p.argument : p.value, out);
      }
      return;
    case 'ArrayPattern':
      for (const e of pattern.elements) if (e) patternNames(e, out);
      return;
    case 'RestElement':
      patternNames(pattern.argument, out);
      return;
    case 'AssignmentPattern':
      patternNames(pattern.left, out);
      return;
    default:
      // MemberExpression: only in assignment targets, never a declaration.
      return;
  }
}

/** Adds the `var` names a statement declares, without entering nested functions. */
function varNames(s: Statement | null | undefined, out: string[]): void {
  if (!s) return;
  switch (s.type) {
    case 'VariableDeclaration':
      if (s.kind === 'var') for (const d of s.declarations) patternNames(d.id, out);
      return;
    case 'BlockStatement':
      for (const t of s.body) varNames(t, out);
      return;
    case 'IfStatement':
      varNames(s.consequent, out);
      varNames(s.alternate, out);
      return;
    case 'ForStatement':
      if (s.init?.type === 'VariableDeclaration') varNames(s.init, out);
      varNames(s.body, out);
      return;
    case 'ForInStatement':
    case 'ForOfStatement':
      if (s.left.type === 'VariableDeclaration') varNames(s.left, out);
      varNames(s.body, out);
      return;
    case 'WhileStatement':
    case 'DoWhileStatement':
    case 'LabeledStatement':
    case 'WithStatement':
      varNames(s.body, out);
      return;
    case 'TryStatement':
      varNames(s.block, out);
      varNames(s.handler?.body, out);
      varNames(s.finalizer, out);
      return;
    case 'SwitchStatement':
      for (const c of s.cases) for (const t of c.consequent) varNames(t, out);
      return;
    default:
      return;
  }
}

/** Adds the names a statement list declares with let, const, using, class or function. */
function lexicalNames(statements: readonly Statement[], out: string[]): void {
  for (let s of statements) {
    while (s.type === 'LabeledStatement') s = s.body;
    if (s.type === 'VariableDeclaration' && s.kind !== 'var') {
      for (const d of s.declarations) patternNames(d.id, out);
    } else if (s.type === 'FunctionDeclaration' || s.type === 'ClassDeclaration') {
      out.push(s.id.name);
    }
  }
}

/** The scope of a function body or static block: its var and lexical declarations. */
function bodyScope(parent: Scope | undefined, body: readonly Statement[]): Scope {
  const names: string[] = [];
  for (const s of body) varNames(s, names);
  lexicalNames(body, names);
  return scopeOf(parent, names);
}

function isNode(value: unknown): value is AnyNode {
  return typeof value === 'object' && value !== null && typeof (value as Node).type === 'string';
}

/** Walks an AST, adding every identifier reference not bound in its scope to `free`. */
class Resolver {
  constructor(private readonly free: Set<string>) {}

  visit(node: AnyNode | null | undefined, scope: Scope | undefined): void {
    if (!node) return;
    switch (node.type) {
      case 'Identifier':
        if (!isBound(node.name, scope)) this.free.add(node.name);
        return;
      case 'FunctionExpression':
      case 'FunctionDeclaration':
      case 'ArrowFunctionExpression':
        this.visitFunction(node, scope);
        return;
      case 'ClassExpression':
      case 'ClassDeclaration': {
        const inner = node.id ? scopeOf(scope, [node.id.name]) : scope;
        this.visit(node.superClass, inner);
        for (const member of node.body.body) this.visit(member, inner);
        return;
      }
      case 'StaticBlock':
        this.visitAll(node.body, bodyScope(scope, node.body));
        return;
      case 'BlockStatement': {
        const names: string[] = [];
        lexicalNames(node.body, names);
        this.visitAll(node.body, names.length ? scopeOf(scope, names) : scope);
        return;
      }
      case 'SwitchStatement': {
        this.visit(node.discriminant, scope);
        const names: string[] = [];
        for (const c of node.cases) lexicalNames(c.consequent, names);
        const inner = scopeOf(scope, names);
        for (const c of node.cases) {
          this.visit(c.test, inner);
          this.visitAll(c.consequent, inner);
        }
        return;
      }
      case 'ForStatement':
      case 'ForInStatement':
      case 'ForOfStatement': {
        const head = node.type === 'ForStatement' ? node.init : node.left;
        const names: string[] = [];
        if (head?.type === 'VariableDeclaration' && head.kind !== 'var') {
          for (const d of head.declarations) patternNames(d.id, names);
        }
        this.visitChildren(node, names.length ? scopeOf(scope, names) : scope);
        return;
      }
      case 'CatchClause': {
        const names: string[] = [];
        if (node.param) patternNames(node.param, names);
        const inner = scopeOf(scope, names);
        if (node.param) this.visitPattern(node.param, inner);
        this.visit(node.body, inner);
        return;
      }
      case 'VariableDeclarator':
        // The names were bound when their scope was made.
        this.visitPattern(node.id, scope);
        this.visit(node.init, scope);
        return;
      case 'MemberExpression':
        this.visit(node.object, scope);
        if (node.computed) this.visit(node.property, scope);
        return;
      case 'Property':
      case 'MethodDefinition':
      case 'PropertyDefinition':
        // A plain key is a name, not a reference; `{ a }` has the reference in its value.
        if (node.computed) this.visit(node.key, scope);
        this.visit(node.value, scope);
        return;
      case 'LabeledStatement':
        this.visit(node.body, scope);
        return;
      case 'BreakStatement':
      case 'ContinueStatement':
      case 'MetaProperty':
      case 'ThisExpression':
      case 'Super':
      case 'PrivateIdentifier':
        return;
      default:
        this.visitChildren(node, scope);
    }
  }

  private visitAll(nodes: readonly AnyNode[], scope: Scope | undefined): void {
    for (const n of nodes) this.visit(n, scope);
  }

  /** Every other node: visit whatever child nodes it has. */
  private visitChildren(node: AnyNode, scope: Scope | undefined): void {
    for (const value of Object.values(node) as unknown[]) {
      if (Array.isArray(value)) {
        for (const item of value) if (isNode(item)) this.visit(item, scope);
      } else if (isNode(value)) {
        this.visit(value, scope);
      }
    }
  }

  /** A binding pattern: its names are bound already; defaults and computed keys are read. */
  private visitPattern(pattern: Pattern, scope: Scope | undefined): void {
    switch (pattern.type) {
      case 'Identifier':
        return;
      case 'ObjectPattern':
        for (const p of pattern.properties) {
          if (p.type === 'RestElement') this.visitPattern(p.argument, scope);
          else {
            if (p.computed) this.visit(p.key, scope);
            this.visitPattern(p.value, scope);
          }
        }
        return;
      case 'ArrayPattern':
        for (const e of pattern.elements) if (e) this.visitPattern(e, scope);
        return;
      case 'RestElement':
        this.visitPattern(pattern.argument, scope);
        return;
      case 'AssignmentPattern':
        this.visitPattern(pattern.left, scope);
        this.visit(pattern.right, scope);
        return;
      default:
        this.visit(pattern, scope);
    }
  }

  private visitFunction(
    fn:
      | FunctionExpression
      | FunctionDeclaration
      | AnonymousFunctionDeclaration
      | ArrowFunctionExpression,
    scope: Scope | undefined,
  ): void {
    // A named function expression sees its own name; a declaration's name is bound outside.
    const outer = fn.type === 'FunctionExpression' && fn.id ? scopeOf(scope, [fn.id.name]) : scope;
    const names: string[] = fn.type === 'ArrowFunctionExpression' ? [] : ['arguments'];
    for (const p of fn.params) patternNames(p, names);
    const params = scopeOf(outer, names);
    for (const p of fn.params) this.visitPattern(p, params);
    if (fn.body.type === 'BlockStatement') {
      this.visitAll(fn.body.body, bodyScope(params, fn.body.body));
    } else {
      this.visit(fn.body, params);
    }
  }
}
