// recordEnqueues(): records every enqueue that commits through one extended Prisma client from now on, and asserts on
// them. It listens to the client itself, so it sees only what this process commits through that client: tests in other
// processes (parallel test files) that share the database never show up in it, and a rolled-back transaction neither.

import type { TaskName, TaskRegistry } from "../define-tasks.js";
import type { CommittedEnqueue } from "../enqueue/committed-enqueues.js";
import { enqueueHookOf, type EnqueueHook } from "../enqueue/enqueue-hook.js";
import { TaskQueueConfigError, UnknownTaskError } from "../errors.js";
import { assertEnqueued, assertNothingEnqueued, refuteEnqueued } from "./enqueue-assertions.js";
import { checkMatch, mismatch, type EnqueueMatch } from "./enqueue-match.js";

export class EnqueueRecorder<Tasks extends TaskRegistry = TaskRegistry> {
  protected readonly hook: EnqueueHook;
  private records: CommittedEnqueue[] = [];
  private unlisten: (() => void) | undefined;

  /** `where` names the function the app called, for error messages. */
  constructor(prisma: unknown, where = "recordEnqueues()") {
    this.hook = requireHook(prisma, where);
    this.unlisten = this.hook.listen((enqueues) => this.committed(enqueues));
  }

  /** Called with each commit's enqueue calls, before the committing call returns to the app. */
  protected committed(enqueues: readonly CommittedEnqueue[]): void {
    this.records.push(...enqueues);
  }

  /**
   * The enqueue calls committed since the recorder started (or was last cleared), oldest first; only those of `name`
   * that match `match` when given. A call whose dedupe key matched an existing task is listed with `created: false`.
   */
  enqueued(name?: TaskName<Tasks>, match?: EnqueueMatch): CommittedEnqueue[] {
    if (name === undefined) return [...this.records];
    this.checkName(name, "enqueued()");
    const checked = checkMatch(match, "enqueued()");
    return this.records.filter((record) => record.name === name && mismatch(record, checked) === undefined);
  }

  /**
   * Throws TaskAssertionError unless a task `name` was enqueued (and committed) matching `match`; returns the first
   * that matches. Its message lists every enqueue recorded, with why each of that name did not match.
   */
  assertEnqueued(name: TaskName<Tasks>, match?: EnqueueMatch): CommittedEnqueue {
    this.checkName(name, "assertEnqueued()");
    return assertEnqueued(this.records, name, checkMatch(match, "assertEnqueued()"));
  }

  /** Throws TaskAssertionError when a task `name` (matching `match`, when given) was enqueued and committed. */
  refuteEnqueued(name: TaskName<Tasks>, match?: EnqueueMatch): void {
    this.checkName(name, "refuteEnqueued()");
    refuteEnqueued(this.records, name, checkMatch(match, "refuteEnqueued()"));
  }

  /** Throws TaskAssertionError, listing them, when any enqueue committed since the recorder started or was cleared. */
  assertNothingEnqueued(): void {
    assertNothingEnqueued(this.records);
  }

  /** Forgets what was recorded so far: later assertions see only what commits from now on. */
  clear(): void {
    this.records = [];
  }

  /** Stops recording. What was recorded stays readable. */
  stop(): void {
    this.unlisten?.();
    this.unlisten = undefined;
  }

  /** A name the client's registry lacks would make refuteEnqueued pass for a typo: refuse it, naming the known ones. */
  private checkName(name: unknown, where: string): void {
    if (typeof name === "string" && Object.hasOwn(this.hook.tasks, name)) return;
    if (typeof name !== "string") throw new TaskQueueConfigError(`${where} name`, `expected a task name, got ${JSON.stringify(name)}.`);
    throw new UnknownTaskError(name, Object.keys(this.hook.tasks));
  }
}

/**
 * Starts recording what commits through `prisma`, the client extended with taskQueue(). Create one per test (in
 * beforeEach, or at the top of the test) before the code under test runs.
 */
export function recordEnqueues<Tasks extends TaskRegistry = TaskRegistry>(prisma: unknown): EnqueueRecorder<Tasks> {
  return new EnqueueRecorder<Tasks>(prisma, "recordEnqueues()");
}

function requireHook(prisma: unknown, where: string): EnqueueHook {
  const hook = enqueueHookOf(prisma);
  if (hook) return hook;
  const got = prisma === null || typeof prisma !== "object" ? (JSON.stringify(prisma) ?? String(prisma)) : "a client without prisma.$taskQueue";
  throw new TaskQueueConfigError(
    "prisma",
    `${where} takes the Prisma client extended with taskQueue() (the one your app enqueues through: ` +
      `new PrismaClient({ adapter }).$extends(taskQueue({ tasks }))), not a transaction client or the client before $extends; got ${got}.`,
  );
}
