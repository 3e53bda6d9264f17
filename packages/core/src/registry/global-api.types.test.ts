// The `dtask` global as TypeScript users see it, through the built declarations (dist): a
// program type-checked under strict nodenext settings may call `dtask.taskProcessor()` without
// declaring anything, and a mistyped `spawn` option is reported against the options overload.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const dist = join(dirname(fileURLToPath(import.meta.url)), '../../dist/index.d.ts');

/** tsc's diagnostics for `source` as a user's `main.mts` importing the built `@dtask/core`. */
function typeCheck(source: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'dtask-types-'));
  try {
    const file = join(dir, 'main.mts');
    writeFileSync(file, source);
    const program = ts.createProgram([file], {
      strict: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(dirname(fileURLToPath(import.meta.url)), '../../../../node_modules/@types')],
      paths: { '@dtask/core': [dist] },
    });
    return ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!existsSync(dist))('the dtask global in the built types', () => {
  it('is declared: dtask.taskProcessor() and dtask.spawn type-check without a declaration', () => {
    const errors = typeCheck(
      [
        "import { spawn, type Processor } from '@dtask/core';",
        'const where = spawn(() => dtask.taskProcessor().id);',
        'const p: Processor = dtask.taskProcessor();',
        'const nested = dtask.spawn((x: number) => x + 1, 1);',
        'export { where, p, nested };',
      ].join('\n'),
    );
    expect(errors).toEqual([]);
  });

  it('a mistyped spawn option is reported against the options overload', () => {
    const errors = typeCheck(
      [
        "import { spawn } from '@dtask/core';",
        'export const t = spawn({ nmae: "x" }, (x: number) => x, 1);',
      ].join('\n'),
    );
    expect(errors).toHaveLength(1);
    // tsc prints the last overload's error as the reason ("The last overload gave the
    // following error"): it is the options overload, not the Chunk one.
    expect(errors[0]!.trim()).toMatch(
      /Overload 3 of 3, '\(options: TaskOptionsInput[^\n]*\n\s*Object literal may only specify known properties, and 'nmae' does not exist in type 'TaskOptionsInput'\.?$/,
    );
  });
});
