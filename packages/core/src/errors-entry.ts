/**
 * `@dtask/core/errors`: the error classes, their codes and their wire registry, without the
 * scheduler. For code that must start fast and only speaks the protocol (a worker process's
 * heartbeat thread, the scheduler's liveness thread); the classes are the same as the main
 * entry's (`instanceof` holds across both).
 */
export * from './errors/index.js';
export { registerErrorClass } from './errors/serialize-error.js';
