import { MAIN_ENTRY_GLOBALS, setMainGlobal } from '../registry/global-api.js';
import { currentFrame } from '../task/frame.js';
import { analyzeFunctionSource } from '../travel/free-variables.js';
import { compileFunction, moduleRefOf } from '../travel/function-ref.js';
import { checkFunctionTravel } from '../travel/function-travel.js';
import { runRemoteStreamNode } from './remote-stream-node.js';
import { runStreamNode } from './run-stream-node.js';
import type { StreamDescriptor } from './stream-descriptor.js';
import { remoteNodes, type StreamNode } from './stream-node.js';

/**
 * Runs a streaming task wherever its driver landed: on the scheduler's thread (its node is
 * here) the local loop, elsewhere the loop that exchanges batches with the scheduler's thread.
 */
function runStream(desc: StreamDescriptor, fn: Function, args: unknown[]): Promise<unknown> {
  const node = remoteNodes.get(desc.node);
  if (node !== undefined) return runStreamNode(node, args);
  return runRemoteStreamNode(desc, fn as (...a: unknown[]) => unknown, args);
}
setMainGlobal(MAIN_ENTRY_GLOBALS.runStream, runStream);

/**
 * `runStream` for a function exported by a module loaded with `everywhere`: elsewhere it is
 * imported there by its module and name (its own source may use the module's other names).
 */
function runStreamModule(
  desc: StreamDescriptor,
  module: string,
  name: string,
  args: unknown[],
): Promise<unknown> {
  const node = remoteNodes.get(desc.node);
  if (node !== undefined) return runStreamNode(node, args);
  const frame = currentFrame();
  return import(module).then((ns: Record<string, unknown>) =>
    runRemoteStreamNode(desc, ns[name] as (...a: unknown[]) => unknown, args, frame),
  );
}
setMainGlobal(MAIN_ENTRY_GLOBALS.runStreamModule, runStreamModule);

/** A name safe inside an identifier. */
function identifier(name: string): string {
  const safe = name.replace(/[^\w$]/g, '_');
  return /^[A-Za-z_$]/.test(safe) ? safe : `f_${safe}`;
}

/**
 * The function a streaming task runs in place of the user's: it takes the node's descriptor
 * first and calls the user's function once per step. When the user's function can travel as
 * source text, so does this one (its text holds the user's), and the task may run on any
 * processor its scope allows; otherwise it is a closure kept on this thread. Returns the
 * driver and whether it can travel.
 */
export function streamDriver(node: StreamNode): { fn: Function; travels: boolean } {
  const user = node.fn;
  const local = (_desc: unknown, ...args: unknown[]) => runStreamNode(node, args);
  const ref = moduleRefOf(user);
  if (ref !== undefined) {
    const name = `stream_${identifier(ref.name)}`;
    const text =
      `function ${name}(desc, ...args) {\n` +
      `  return globalThis[Symbol.for('dtask.runStreamModule')](desc, ${JSON.stringify(ref.module)}, ${JSON.stringify(ref.name)}, args);\n}`;
    return { fn: compileFunction(text, name), travels: true };
  }
  if (!checkFunctionTravel(user).ok) {
    return { fn: local, travels: false };
  }
  const source = Function.prototype.toString.call(user);
  let kind: string;
  try {
    kind = analyzeFunctionSource(source).kind;
  } catch {
    return { fn: local, travels: false };
  }
  if (kind !== 'function') return { fn: local, travels: false };
  const name = `stream_${identifier(user.name || 'task')}`;
  const text =
    `function ${name}(desc, ...args) {\n` +
    `  return globalThis[Symbol.for('dtask.runStream')](desc, (${source}\n  ), args);\n}`;
  return { fn: compileFunction(text, name), travels: true };
}
