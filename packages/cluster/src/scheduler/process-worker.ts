import type { ChildProcess } from 'node:child_process';
import { type ThreadProc, WorkerLostError } from '@dtask/core';
import type { PluginHost } from '@dtask/core/plugin';
import type { AdminToWorker, AdminToWorkerOf, WorkerConnection } from '@dtask/core/worker';
import type { Link } from '../wire/link.js';
import { MemberConnection } from './member-connection.js';

/** How long an ended process's links may take to deliver what was sent before the end (ms). */
const DRAIN_MS = 250;

/** How to make the scheduler's record of one worker process. */
export interface ProcessWorkerOptions {
  worker: number;
  /** Makes the scheduler's connection to each thread (the plugin host's `connectWorker`). */
  connect: PluginHost['connectWorker'];
  /** Whether the runtime behind `self` can fetch directly from the one behind `other`. */
  linkedTo: (self: MemberConnection, other: WorkerConnection) => boolean;
  /** The runtime behind `self` said it cannot link to peer `holder`. */
  unreachable: (self: MemberConnection, holder: string) => void;
  /** Called once when the worker is gone, before its tasks are handed back. */
  onLost: (worker: ProcessWorker, reason: string) => void;
  /** What waking each of its threads costs placement (`MemberOptions.wakeMs`); default 0. */
  wakeMs?: number;
}

/**
 * The scheduler's record of one worker process: its threads (`ThreadProc(worker, 1)` for its
 * main thread, then 2, 3, … for the worker threads it runs), each a `MemberConnection` with a
 * link of its own; the heartbeat thread's link; and, for a local worker, its child process. The
 * process lives and dies as one: losing any of its links loses all its threads.
 */
export class ProcessWorker {
  /** Its threads by number; thread 1 is the process's main thread. */
  readonly members = new Map<number, MemberConnection>();
  heartbeat: Link | undefined;
  child: ChildProcess | undefined;
  /** When it was started or began joining (`performance.now()`), and when it joined. */
  readonly startedAt = performance.now();
  joinedAt: number | undefined;
  /** Set once it is gone. */
  exited = false;
  /** Why it was lost, once it was. */
  lostReason: string | undefined;
  /** Why its process ended, once known, while its links drain (`ended`). */
  private endedBecause: string | undefined;
  /** When the oldest probe it has not answered yet was sent. */
  private probedAt: number | undefined;
  /** Synchronous answers made before its heartbeat thread joined. */
  private readonly unsentAnswers: AdminToWorkerOf<'answer'>[] = [];

  constructor(private readonly options: ProcessWorkerOptions) {
    this.addMember(1);
  }

  /** The worker id. */
  get worker(): number {
    return this.options.worker;
  }

  /** Its main thread's processor (`thread:<worker>:1`). */
  get proc(): ThreadProc {
    return this.main.proc;
  }

  /** Its main thread's connection. */
  get connection(): WorkerConnection {
    return this.main.connection;
  }

  /** Its main thread's link, once it joined. */
  get link(): Link | undefined {
    return this.main.link;
  }

  /** Where its main thread's peers reach it. */
  get peerAddress(): string | undefined {
    return this.main.peerAddress;
  }

  /** Every thread's processor with its connection, main thread first (as a `WorkerPool` sees it). */
  processors(): MemberConnection[] {
    return [...this.members.values()];
  }

  /** Every thread's processor, main thread first. */
  get procs(): ThreadProc[] {
    return [...this.members.values()].map((m) => m.proc);
  }

  /** Whether it has joined and every thread it runs serves tasks (not while it still starts). */
  get wasReady(): boolean {
    return this.members.size > 0 && [...this.members.values()].every((m) => m.wasReady);
  }

  /**
   * Whether one of its threads' runtimes started running tasks (core's `ready`, sent before any
   * task runs), though the process may not have said it serves yet: its death is then no
   * failed start, also when a task sent ahead ended it.
   */
  get served(): boolean {
    return [...this.members.values()].some((m) => m.wasReady || m.connection.wasReady);
  }

  /** Resolves when every thread serves tasks; rejects if the process is lost first. */
  get ready(): Promise<void> {
    return Promise.all([...this.members.values()].map((m) => m.ready)).then(() => {});
  }

  private get main(): MemberConnection {
    return this.members.get(1)!;
  }

  /** Records that it runs `count` threads beside its main thread (2 … count+1). */
  setThreads(count: number): void {
    for (let thread = 2; thread <= count + 1; thread++) this.addMember(thread);
  }

  /** Takes the link one of its threads joined on and sends it what to set up. */
  join(
    thread: number,
    link: Link,
    peerAddress: string,
    init: Omit<AdminToWorkerOf<'init'>, 'op' | 'worker'>,
  ): void {
    if (thread === 1) this.joinedAt = performance.now();
    this.members.get(thread)!.join(link, peerAddress, { op: 'init', worker: this.worker, ...init });
  }

  /** Sends a synchronous answer through the heartbeat thread (held until it has joined). */
  private sendAnswer(answer: AdminToWorkerOf<'answer'>): void {
    if (this.heartbeat === undefined) this.unsentAnswers.push(answer);
    else this.heartbeat.sendAdmin(answer);
  }

  /** Takes the link of the process's heartbeat thread. */
  attachHeartbeat(link: Link): void {
    this.heartbeat?.close();
    this.heartbeat = link;
    this.probedAt = undefined;
    for (const answer of this.unsentAnswers.splice(0)) link.sendAdmin(answer);
    link.socket.unref();
    link.onClose(() => {
      if (this.heartbeat === link) this.ended('its heartbeat link closed');
    });
  }

  /**
   * Called every heartbeat period, after the event loop has read what arrived: probes the
   * worker, and declares it lost when a probe has gone unanswered for `timeoutMs`, or when it
   * has not joined (or started its heartbeat) in time. Only probes count, not the time since
   * the worker was last heard: a scheduler whose thread was busy elsewhere (the user's
   * synchronous code) sent none meanwhile, and does not blame the worker for its own silence.
   */
  probe(now: number, timeoutMs: number, startTimeoutMs: number): void {
    if (this.exited) return;
    if (this.joinedAt === undefined || !this.wasReady) {
      if (now - this.startedAt > startTimeoutMs)
        this.lose(`it did not join and serve within ${startTimeoutMs} ms`);
      if (this.joinedAt === undefined) return;
    }
    const heartbeat = this.heartbeat;
    if (heartbeat === undefined) {
      // Its heartbeat thread starts while it starts (before it says it serves): as long a wait
      // as the start itself may take, since many workers starting at once on a busy machine
      // are slow to start a thread.
      const wait = Math.max(timeoutMs, startTimeoutMs);
      if (now - this.joinedAt > wait) this.lose(`its heartbeat did not start within ${wait} ms`);
      return;
    }
    if (this.probedAt !== undefined && heartbeat.lastHeard >= this.probedAt) {
      this.probedAt = undefined; // answered
    }
    if (this.probedAt !== undefined && now - this.probedAt > timeoutMs) {
      this.lose(`it did not answer a heartbeat probe for ${Math.round(now - this.probedAt)} ms`);
      return;
    }
    heartbeat.ping();
    this.probedAt ??= now;
  }

  /** Loads an `everywhere` module in each of its threads that serves (others get it on joining). */
  async loadModule(url: string): Promise<void> {
    if (this.exited) return;
    const serving = [...this.members.values()].filter((m) => m.wasReady);
    await Promise.all(serving.map((m) => m.loadModule(url)));
  }

  /**
   * Its process ended (the child exited, its heartbeat link closed): declared lost once each
   * thread's link has closed too, so that what they sent before the end is read first (a
   * `dying` naming the task that called `process.exit`), or after `DRAIN_MS`.
   */
  ended(reason: string): void {
    if (this.exited || this.endedBecause !== undefined) return;
    this.endedBecause = reason;
    const open = [...this.members.values()].filter((m) => m.link && !m.link.isClosed);
    let left = open.length;
    if (left === 0) {
      this.lose(reason);
      return;
    }
    const timer = setTimeout(() => this.lose(reason), DRAIN_MS);
    timer.unref();
    for (const m of open) {
      m.link!.onClose(() => {
        if (--left > 0) return;
        clearTimeout(timer);
        this.lose(reason);
      });
    }
  }

  /** Declares it gone (once): ends the process, closes its links; its tasks go back. */
  lose(reason: string): void {
    if (this.exited) return;
    this.exited = true;
    reason = this.endedBecause ?? reason;
    this.lostReason = reason;
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGKILL');
    }
    const error = new WorkerLostError(`Worker process ${this.worker} was lost: ${reason}`);
    this.options.onLost(this, reason);
    this.heartbeat?.close();
    for (const m of this.members.values()) {
      // Tasks that waited for a thread that never joined were never delivered: handed back
      // without counting as kills, so they wait for the replacement.
      if (m.link === undefined) m.connection.close();
      m.fail(error);
    }
  }

  /** Ends it on purpose (its tasks are not counted against them); resolves once it is gone. */
  async terminate(graceMs = 2000): Promise<void> {
    if (this.exited) return;
    this.link?.sendAdmin({ op: 'exit' } satisfies AdminToWorker);
    await Promise.all([...this.members.values()].map((m) => m.connection.close()));
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.exited = true;
    this.heartbeat?.close();
    for (const m of this.members.values()) m.link?.close();
  }

  private addMember(thread: number): void {
    if (this.members.has(thread)) return;
    const member: MemberConnection = new MemberConnection({
      worker: this.worker,
      thread,
      connect: this.options.connect,
      wakeMs: this.options.wakeMs,
      linkedTo: (other) => this.options.linkedTo(member, other),
      unreachable: (holder) => this.options.unreachable(member, holder),
      answer: (id, buffer) => this.sendAnswer({ op: 'answer', id, bytes: new Uint8Array(buffer) }),
      onLost: (reason) => this.lose(reason),
    });
    this.members.set(thread, member);
    // Kept alive while it starts (so awaiting `ready` keeps node running); idle, it does not.
    member.ready.then(
      () => {
        if (this.wasReady) this.child?.unref();
      },
      () => {}, // lost first: `lose` says why
    );
  }
}
