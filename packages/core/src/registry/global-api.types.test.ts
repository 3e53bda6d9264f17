// The `dtask` global as TypeScript users see it, through the built declarations (dist): a
// program type-checked under strict nodenext settings may call `dtask.taskProcessor()` without
// declaring anything, and a mistyped `spawn` option is reported against the options overload.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const dist = join(dirname(fileURLToPath(import.meta.url)), '../../dist/index.d.ts');

/**
 * Set by the test command, which starts the tests once the JavaScript is built and builds the
 * declarations beside them: the file their build writes its exit status to when it ends, and the
 * process building them (scripts/declarations-built.mjs, which the pack waits with).
 */
const typesDone = process.env.DTASK_TYPES_DONE;
const typesPid = Number(process.env.DTASK_TYPES_PID);

/** Whether the declarations' build is still running (or ran here unnamed). */
function building(): boolean {
  if (!(typesPid > 0)) return true;
  try {
    process.kill(typesPid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Waits (no time limit: the build ends, well or not) until the declarations' build has ended. */
async function declarationsBuilt(done: string): Promise<void> {
  while (!existsSync(done)) {
    if (!building() && !existsSync(done)) {
      throw new Error('the type check and declarations ended without an exit status (killed?)');
    }
    await sleep(250);
  }
  const status = readFileSync(done, 'utf8').trim();
  if (status !== '0') {
    throw new Error(
      `the declarations were not built (the type check or their build exited ${status}; the test command prints why)`,
    );
  }
}

/**
 * tsc's diagnostics for each of `sources`, each a user's `<name>.mts` importing the built
 * `@dtask/core`, by name: one program checks them all, so the node and core declarations are
 * read and bound once.
 */
function typeCheck(sources: Record<string, string>): Record<string, string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'dtask-types-'));
  try {
    const files = Object.entries(sources).map(([name, source]) => {
      const file = join(dir, `${name}.mts`);
      writeFileSync(file, source);
      return [name, file] as const;
    });
    const program = ts.createProgram(
      files.map(([, file]) => file),
      {
        strict: true,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        // A Node project's libs (as @tsconfig/node20's, no DOM): the declarations must not lean
        // on DOM types, and tsc reads no lib.dom.d.ts (about 1 s of CPU of this file's 4.9).
        lib: ['lib.es2022.d.ts'],
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [
          join(dirname(fileURLToPath(import.meta.url)), '../../../../node_modules/@types'),
        ],
        paths: { '@dtask/core': [dist] },
      },
    );
    const byName: Record<string, string[]> = {};
    for (const [name, file] of files) {
      byName[name] = ts
        .getPreEmitDiagnostics(program, program.getSourceFile(file))
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    }
    // Diagnostics of no file (options, global types) would otherwise go unseen.
    byName[''] = program
      .getOptionsDiagnostics()
      .concat(program.getGlobalDiagnostics())
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    return byName;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Both programs the tests check, checked once before them (in `beforeAll`, which has no time
 * limit: tsc's seconds of CPU grow with the machine's load, and a synchronous check inside a test
 * would count against the test's timeout).
 */
let checked: Record<string, string[]> | undefined;
const checkBoth = (): void => {
  checked = typeCheck({
    declared: [
      "import { spawn, type Processor } from '@dtask/core';",
      'const where = spawn(() => dtask.taskProcessor().id);',
      'const p: Processor = dtask.taskProcessor();',
      'const nested = dtask.spawn((x: number) => x + 1, 1);',
      'export { where, p, nested };',
    ].join('\n'),
    mistyped: [
      "import { spawn } from '@dtask/core';",
      'export const t = spawn({ nmae: "x" }, (x: number) => x, 1);',
    ].join('\n'),
  });
};
const diagnostics = (name: 'declared' | 'mistyped'): string[] => {
  expect(checked?.['']).toEqual([]);
  return checked![name]!;
};

// Built, or being built beside the tests by the test command.
const built = typesDone !== undefined || existsSync(dist);

describe.skipIf(!built)('the dtask global in the built types', () => {
  // A timeout of 0 is none: how long the declarations' build and the type check take depends on
  // the machine's load.
  beforeAll(async () => {
    if (typesDone !== undefined) await declarationsBuilt(typesDone);
    checkBoth();
  }, 0);

  it('is declared: dtask.taskProcessor() and dtask.spawn type-check without a declaration', () => {
    const errors = diagnostics('declared');
    expect(errors).toEqual([]);
  });

  it('a mistyped spawn option is reported against the options overload', () => {
    const errors = diagnostics('mistyped');
    expect(errors).toHaveLength(1);
    // tsc prints the last overload's error as the reason ("The last overload gave the
    // following error"): it is the options overload, not the Chunk one.
    expect(errors[0]!.trim()).toMatch(
      /Overload 3 of 3, '\(options: TaskOptionsInput[^\n]*\n\s*Object literal may only specify known properties, and 'nmae' does not exist in type 'TaskOptionsInput'\.?$/,
    );
  });
});
