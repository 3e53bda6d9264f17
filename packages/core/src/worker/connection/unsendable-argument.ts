import { describeValue } from '../../errors/describe-value.js';
import { ArgumentError } from '../../errors/errors.js';

/**
 * Why a task could not be sent to another thread or process: an `ArgumentError` naming the
 * argument that cannot be copied there and what to pass instead, or `error` itself when every
 * argument copies (the options or the function were the problem). Called only once sending
 * failed, so the per-argument copies cost nothing on the normal path.
 */
export function unsendableArgument(
  taskId: number,
  args: readonly unknown[],
  holder: string,
  error: unknown,
): unknown {
  for (let i = 0; i < args.length; i++) {
    try {
      structuredClone(args[i]);
    } catch (cause) {
      return new ArgumentError(
        `Argument ${i} of task #${taskId} (${describeValue(args[i])}) cannot be copied to ${holder}: ` +
          `${cause instanceof Error ? cause.message : String(cause)}. A task that runs on another ` +
          'thread or process gets copies of its arguments, so they must be plain data (numbers, ' +
          'strings, arrays, plain objects, typed arrays, Maps, Sets). Pass a function as the ' +
          "task's own function (spawn(f, ...)), or export it from a module loaded with " +
          'everywhere(); or scope the task to the main thread.',
        { cause },
      );
    }
  }
  return error;
}
