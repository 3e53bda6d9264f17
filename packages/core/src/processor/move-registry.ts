import { ArgumentError } from '../errors/errors.js';
import type { Processor } from './processor.js';

/**
 * One way to move (and perhaps convert) a value from one processor to another, e.g. a typed
 * array from a thread to a GPU becomes a tensor. `from`/`to` are processor kinds (`'*'` or
 * omitted: any). `match` narrows the values it applies to.
 */
export interface MoveRule {
  /** Shown in logs and errors. */
  name: string;
  from?: string;
  to?: string;
  match?: (value: unknown) => boolean;
  move: (from: Processor, to: Processor, value: unknown) => unknown;
}

const KEY = Symbol.for('dtask.moveRules');

function rules(): MoveRule[] {
  const g = globalThis as unknown as { [KEY]?: MoveRule[] };
  g[KEY] ??= [];
  return g[KEY];
}

/** Adds a move rule; the most specific one applies, the later one on a tie. Returns a remover. */
export function registerMove(rule: MoveRule): () => void {
  if (typeof rule !== 'object' || rule === null || typeof rule.move !== 'function') {
    throw new ArgumentError('registerMove(rule) needs { name, from?, to?, match?, move }');
  }
  if (typeof rule.name !== 'string' || rule.name === '') {
    throw new ArgumentError('registerMove(rule): rule.name must be a non-empty string');
  }
  const list = rules();
  list.push(rule);
  return () => {
    const at = list.indexOf(rule);
    if (at >= 0) list.splice(at, 1);
  };
}

function specificity(rule: MoveRule, from: Processor, to: Processor, value: unknown): number {
  let score = 0;
  if (rule.from !== undefined && rule.from !== '*') {
    if (rule.from !== from.kind) return -1;
    score += 2;
  }
  if (rule.to !== undefined && rule.to !== '*') {
    if (rule.to !== to.kind) return -1;
    score += 2;
  }
  if (rule.match) {
    if (!rule.match(value)) return -1;
    score += 1;
  }
  return score;
}

/** The rule that moves `value` from `from` to `to`, or undefined for a plain pass/clone. */
export function findMove(from: Processor, to: Processor, value: unknown): MoveRule | undefined {
  let best: MoveRule | undefined;
  let bestScore = -1;
  for (const rule of rules()) {
    const score = specificity(rule, from, to, value);
    if (score >= bestScore && score >= 0) {
      best = rule;
      bestScore = score;
    }
  }
  return best;
}

/** True when any rule exists at all (lets the hot path skip the search). */
export function hasMoveRules(): boolean {
  return rules().length > 0;
}
