import { isChunk } from '../../../chunk/chunk.js';
import { ArgumentError } from '../../../errors/errors.js';
import { isLent } from '../../../protocol/lent-chunk.js';
import { isDTask } from '../../../task/dtask.js';
import {
  boxClasses,
  UnregisteredClassFound,
  unregisteredClassMessage,
} from '../../../travel/class-travel.js';
import { compactView } from '../../../travel/view-form.js';

/** Objects of the runtime's own that go as they are (a nested handle has its own error). */
const ownObject = (x: object) => isDTask(x) || isChunk(x) || isLent(x);

/**
 * A task's arguments as they go to another runtime (`holder` names it): `args` itself when
 * none is a strided view or holds a class instance; else a copy with each strided view in its
 * compact form (view-form.ts; one that appears twice in `args` goes as it is, so that it
 * arrives as one object) and each class instance in its travelling form (`boxClasses`), so the
 * task's own arguments (its lineage) stay as they were. Returns an
 * `ArgumentError` naming an instance whose class was not loaded with `everywhere`. Arguments
 * at `copiedBack` (a copy-out's `returnArgs.indices`) go as they are: the copy-out writes them
 * back into the caller's objects by its own rules.
 */
export function boxArgs(
  taskId: number,
  args: unknown[],
  holder: string,
  copiedBack?: readonly number[],
): unknown[] | Error {
  let out = args;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (typeof a !== 'object' || a === null || copiedBack?.includes(i)) continue;
    const compact = compactView(a);
    if (compact !== undefined && args.indexOf(a) === i && args.lastIndexOf(a) === i) {
      if (out === args) out = args.slice();
      out[i] = compact;
      continue;
    }
    let boxed: unknown;
    try {
      boxed = boxClasses(a, ownObject);
    } catch (error) {
      // Looking inside threw (a getter, a proxy's trap): sent as it is, its copy fails and
      // `unsendableArgument` says why.
      if (!(error instanceof UnregisteredClassFound)) continue;
      return new ArgumentError(
        unregisteredClassMessage(`Argument ${i} of task #${taskId}`, holder, error.found),
      );
    }
    if (boxed !== a) {
      if (out === args) out = args.slice();
      out[i] = boxed;
    }
  }
  return out;
}
