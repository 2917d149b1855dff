// ctx.step of one run: numbers the handler's steps in the order it asks for them, replays what earlier runs recorded
// (read once per run, on the first step), records what this run does, and ends the run with a suspension when a sleep
// or a wait has to wait. A handler that never asks for a step never reaches this file.

import type { TaskRecord } from "../store/task-record.js";
import type { Store } from "../store/store.js";
import { FINISHED_STATUSES, MAX_STEP_NAME_LENGTH, RESERVED_EVENT_PREFIX, type NewStep, type StepKind, type StepRecord, type Suspension } from "../store/steps.js";
import { transactionGate } from "../enqueue/transaction-gate.js";
import { TaskLeaseLostError } from "../worker/worker-errors.js";
import {
  MAX_WAIT_MS,
  type ChildHandle,
  type ChildOutcome,
  type ChildrenWaitOptions,
  type EventResult,
  type StepInfo,
  type WaitOptions,
  type WorkflowSteps,
} from "./steps-api.js";
import { StepError, WorkflowNondeterminismError } from "./workflow-errors.js";
import { childHandles, childrenWait, endedChildren } from "./children-wait.js";
import { runScopeOf } from "../telemetry/telemetry.js";

/** What the run lends its steps. */
export interface StepHost {
  readonly task: TaskRecord;
  /** The worker's id: the lease owner every step's record is guarded by. */
  readonly owner: string;
  /** The worker's store (its own connection). */
  readonly store: Store;
  /** The worker's Prisma client, for transactional steps. */
  readonly prisma: unknown;
  /** Throws the reason the run is over (timed out, lease lost, shut down) when it is; a step never starts then. */
  checkRunning(): void;
  /** Whether the handler itself runs in a transaction (`transactional: true`): steps are refused there. */
  readonly transactional: boolean;
}

/** Thrown through the handler when a sleep or a wait ends the run; the run then writes `suspension`. */
export class WorkflowSuspended extends Error {
  constructor(readonly suspension: Suspension) {
    super(`the workflow waits (step ${suspension.seq}); the task goes back to the queue until then`);
    this.name = "WorkflowSuspended";
  }
}

/** A transactional step whose record another run wrote first: its transaction rolls back. */
class StepTakenError extends Error {}

export class StepRunner implements WorkflowSteps<unknown> {
  private recorded: Promise<Map<number, StepRecord>> | undefined;
  private lastSeq = 0;
  /** Set when a sleep or a wait ended the run: what the run writes instead of an outcome. */
  suspension: Suspension | undefined;
  /** The seqs this run replayed from the record (for their spans' outcome). */
  private readonly replayed = new Set<number>();

  constructor(private readonly host: StepHost) {}

  /** Steps this run asked for, recorded or replayed. */
  get steps(): number {
    return this.lastSeq;
  }

  async run<Result>(name: string, fn: (info: StepInfo) => Result | Promise<Result>): Promise<Awaited<Result>> {
    const seq = this.begin(name, fn);
    return this.observed(seq, name, "run", () => this.runStep(seq, name, fn));
  }

  private async runStep<Result>(seq: number, name: string, fn: (info: StepInfo) => Result | Promise<Result>): Promise<Awaited<Result>> {
    const prior = await this.prior(seq, name, "run");
    if (prior) return parse(prior.resultJson) as Awaited<Result>;
    this.host.checkRunning();
    const json = resultOf(this.host.task.name, name, await fn(this.info(seq)));
    const { written } = await this.host.store.recordStep(this.host.owner, this.newStep(seq, name, "run", json));
    if (!written) return (await this.taken(seq, name, "run")) as Awaited<Result>;
    return parse(json) as Awaited<Result>;
  }

  async transaction<Result>(name: string, fn: (tx: unknown, info: StepInfo) => Promise<Result>): Promise<Awaited<Result>> {
    const seq = this.begin(name, fn);
    return this.observed(seq, name, "transaction", () => this.transactionStep(seq, name, fn));
  }

  private transactionStep<Result>(seq: number, name: string, fn: (tx: unknown, info: StepInfo) => Promise<Result>): Promise<Awaited<Result>> {
    return this.inTransaction(seq, name, "transaction", fn) as Promise<Awaited<Result>>;
  }

  /**
   * Runs `fn` in a transaction of the worker's Prisma client and records its result (as `kind`) in the same
   * transaction; a record another run wrote first rolls it back and replays that one.
   */
  private async inTransaction(seq: number, name: string, kind: StepKind, fn: (tx: unknown, info: StepInfo) => Promise<unknown>): Promise<unknown> {
    if (this.host.prisma === undefined)
      throw new StepError(this.host.task.name, name, "a transactional step needs the worker's `prisma` option (the client extended with taskQueue()).");
    const prior = await this.prior(seq, name, kind);
    if (prior) return parse(prior.resultJson);
    this.host.checkRunning();
    const { store, owner, task } = this.host;
    const prisma = this.host.prisma as { $transaction(fn: (tx: unknown) => Promise<unknown>): Promise<unknown> };
    const gate = transactionGate(prisma, store);
    const attempt = () =>
      prisma.$transaction(async (tx) => {
        const json = resultOf(task.name, name, await fn(tx, this.info(seq)));
        this.host.checkRunning();
        const { written } = await store.through(tx).recordStep(owner, this.newStep(seq, name, kind, json));
        if (!written) throw new StepTakenError();
        return json;
      }) as Promise<string>;
    try {
      return parse(await (gate ? gate.run(attempt, () => store.through(prisma).endFailedTransaction()) : attempt()));
    } catch (error) {
      if (error instanceof StepTakenError) return this.taken(seq, name, kind);
      throw error;
    }
  }

  async sleep(name: string, ms: number): Promise<void> {
    if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0 || ms > MAX_WAIT_MS) {
      throw new StepError(this.host.task.name, String(name), `sleep takes milliseconds from 0 to ${MAX_WAIT_MS} (about ten years), got ${String(ms)}.`);
    }
    await this.sleepStep(name, { inMs: ms });
  }

  async sleepUntil(name: string, until: Date): Promise<void> {
    if (!(until instanceof Date) || Number.isNaN(until.getTime()) || until.getTime() > Date.now() + MAX_WAIT_MS) {
      throw new StepError(this.host.task.name, String(name), `sleepUntil takes a valid Date at most about ten years ahead, got ${String(until)}.`);
    }
    await this.sleepStep(name, { at: until });
  }

  async waitForEvent<Payload = unknown>(name: string, options: WaitOptions): Promise<EventResult<Payload>> {
    const seq = this.begin(name, () => {});
    return this.observed(seq, name, "wait", () => this.waitStep<Payload>(seq, name, options));
  }

  private async waitStep<Payload>(seq: number, name: string, options: WaitOptions): Promise<EventResult<Payload>> {
    const { task } = this.host;
    const event = options?.event;
    if (typeof event !== "string" || event.length === 0 || event.length > MAX_STEP_NAME_LENGTH) {
      throw new StepError(task.name, name, `waitForEvent needs { event: "<name>" }, 1 to ${MAX_STEP_NAME_LENGTH} characters; got ${JSON.stringify(event)}.`);
    }
    if (event.startsWith(RESERVED_EVENT_PREFIX)) {
      throw new StepError(
        task.name,
        name,
        `event names starting with "${RESERVED_EVENT_PREFIX}" are the package's own, got ${JSON.stringify(event)}: pick another name.`,
      );
    }
    const timeoutMs = options.timeoutMs;
    if (timeoutMs !== undefined && (typeof timeoutMs !== "number" || !Number.isFinite(timeoutMs) || timeoutMs < 0 || timeoutMs > MAX_WAIT_MS)) {
      throw new StepError(
        task.name,
        name,
        `timeoutMs takes milliseconds from 0 to ${MAX_WAIT_MS}, or leave it out to wait without a deadline; got ${String(timeoutMs)}.`,
      );
    }
    const prior = await this.prior(seq, name, "wait");
    if (prior?.state === "done") return received<Payload>(prior.resultJson);
    if (!prior) {
      this.host.checkRunning();
      const step = this.newStep(seq, name, "wait", null);
      const { written } = await this.host.store.recordStep(this.host.owner, timeoutMs === undefined ? step : { ...step, until: { inMs: timeoutMs } });
      if (!written) {
        const taken = await this.takenStep(seq, name, "wait");
        if (taken.state === "done") return received<Payload>(taken.resultJson);
      }
    }
    const receipt = await this.host.store.receiveEvent(this.host.owner, task.id, task.attempts, seq, event);
    switch (receipt.kind) {
      case "received":
        return { timedOut: false, payload: parse(receipt.payloadJson) as Payload };
      case "timed-out":
        return { timedOut: true };
      case "waiting":
        throw this.suspend({ id: task.id, attempt: task.attempts, seq, event });
      case "lost":
        throw new TaskLeaseLostError(task.name, task.id);
    }
  }

  async startChildren(name: string, fn: (tx: unknown, info: StepInfo) => Promise<ReadonlyArray<{ id: string; name: string }>>): Promise<ChildHandle[]> {
    const seq = this.begin(name, fn);
    return this.observed(seq, name, "children", () =>
      this.inTransaction(seq, name, "children", async (tx, info) => {
        const started = await fn(tx, info);
        const handles = childHandles(this.host.task.name, name, started, "return what its enqueues returned (each has an id and a name)");
        await this.host.store.through(tx).linkChildren(
          this.host.task.id,
          handles.map((child) => child.id),
        );
        return handles;
      }),
    ) as Promise<ChildHandle[]>;
  }

  async waitForChildren<Result = unknown>(name: string, children: readonly ChildHandle[], options: ChildrenWaitOptions = {}): Promise<Array<ChildOutcome<Result>>> {
    const seq = this.begin(name, () => {});
    return this.observed(seq, name, "wait-children", () => this.childrenStep<Result>(seq, name, children, options));
  }

  private async childrenStep<Result>(seq: number, name: string, children: readonly ChildHandle[], options: ChildrenWaitOptions): Promise<Array<ChildOutcome<Result>>> {
    const { task, store, owner } = this.host;
    const handles = childHandles(task.name, name, children, "pass the handles startChildren returned");
    const wait = childrenWait(task.name, name, handles.length, options);
    const prior = await this.prior(seq, name, "wait-children");
    if (prior) return parse(prior.resultJson) as Array<ChildOutcome<Result>>;
    for (;;) {
      this.host.checkRunning();
      const states = await store.childStates(task.id);
      const ended = endedChildren(task.name, name, handles, states, wait);
      if (ended) {
        const json = JSON.stringify(ended);
        const { written } = await store.recordStep(owner, this.newStep(seq, name, "wait-children", json));
        if (!written) return (await this.taken(seq, name, "wait-children")) as Array<ChildOutcome<Result>>;
        return ended as Array<ChildOutcome<Result>>;
      }
      const finished = states.filter((state) => FINISHED_STATUSES.includes(state.status as (typeof FINISHED_STATUSES)[number])).length;
      const suspension = { id: task.id, attempt: task.attempts, seq };
      const written = await store.suspendForChildren(owner, { ...suspension, finished, recheckMs: wait.recheckMs });
      if (written === undefined) throw new TaskLeaseLostError(task.name, task.id);
      // A child ended between the read and the suspension: read again.
      if (written !== "changed") throw this.suspend({ ...suspension, written });
    }
  }

  private async sleepStep(name: string, until: NewStep["until"]): Promise<void> {
    const seq = this.begin(name, () => {});
    return this.observed(seq, name, "sleep", () => this.sleepUntilRecorded(seq, name, until));
  }

  private async sleepUntilRecorded(seq: number, name: string, until: NewStep["until"]): Promise<void> {
    const { task } = this.host;
    const prior = await this.prior(seq, name, "sleep");
    if (prior) {
      if (sleptEnough(prior, task)) return;
      throw this.suspend({ id: task.id, attempt: task.attempts, seq });
    }
    this.host.checkRunning();
    const recorded = await this.host.store.recordStep(this.host.owner, { ...this.newStep(seq, name, "sleep", null), until });
    if (!recorded.written) {
      const taken = await this.takenStep(seq, name, "sleep");
      if (sleptEnough(taken, task)) return;
    } else if ((recorded.untilInMs ?? 0) <= 0) {
      return;
    }
    throw this.suspend({ id: task.id, attempt: task.attempts, seq });
  }

  /** Runs one step inside its span (when the run is traced), ended with how the step went. */
  private async observed<T>(seq: number, name: string, kind: StepKind, step: () => Promise<T>): Promise<T> {
    const end = runScopeOf(this.host.task)?.step(name, kind, seq);
    if (!end) return step();
    try {
      const value = await step();
      end(this.replayed.has(seq) ? "replayed" : "recorded");
      return value;
    } catch (error) {
      end(error instanceof WorkflowSuspended ? "suspended" : "failed", error);
      throw error;
    }
  }

  private suspend(suspension: Suspension): WorkflowSuspended {
    this.suspension = suspension;
    return new WorkflowSuspended(suspension);
  }

  /** Checks the step's name and numbers it; refuses steps where they cannot run. */
  private begin(name: string, fn: unknown): number {
    const { task, transactional } = this.host;
    if (typeof name !== "string" || name.length === 0 || name.length > MAX_STEP_NAME_LENGTH) {
      throw new StepError(task.name, String(name), `a step's name is a string of 1 to ${MAX_STEP_NAME_LENGTH} characters, got ${JSON.stringify(name)}.`);
    }
    if (typeof fn !== "function") throw new StepError(task.name, name, `expected a function, got ${typeof fn}.`);
    if (transactional) {
      throw new StepError(
        task.name,
        name,
        "steps need a handler that runs outside a transaction: leave out `transactional: true` and put the writes that must commit together in ctx.step.transaction().",
      );
    }
    if (this.suspension) throw new WorkflowSuspended(this.suspension);
    return ++this.lastSeq;
  }

  /** The recorded step `seq`, checked against what this run asks for; undefined when none is recorded. */
  private async prior(seq: number, name: string, kind: StepKind): Promise<StepRecord | undefined> {
    this.recorded ??= this.host.store.loadSteps(this.host.task.id).then((rows) => new Map(rows.map((row) => [row.seq, row])));
    const prior = (await this.recorded).get(seq);
    if (prior) {
      this.check(prior, name, kind);
      this.replayed.add(seq);
    }
    return prior;
  }

  private check(prior: StepRecord, name: string, kind: StepKind): void {
    if (prior.name === name && prior.kind === kind) return;
    const { task } = this.host;
    throw new WorkflowNondeterminismError(task.name, task.id, prior.seq, { name: prior.name, kind: prior.kind }, { name, kind });
  }

  /** The step's record was not written: another run recorded it first (replayed here), or this run lost the task. */
  private async taken(seq: number, name: string, kind: StepKind): Promise<unknown> {
    return parse((await this.takenStep(seq, name, kind)).resultJson);
  }

  private async takenStep(seq: number, name: string, kind: StepKind): Promise<StepRecord> {
    const { task, store } = this.host;
    const found = (await store.loadSteps(task.id)).find((row) => row.seq === seq);
    if (!found) throw new TaskLeaseLostError(task.name, task.id);
    this.check(found, name, kind);
    return found;
  }

  private newStep(seq: number, name: string, kind: StepKind, resultJson: string | null): NewStep {
    const { task } = this.host;
    return { taskId: task.id, attempt: task.attempts, seq, name, kind, resultJson };
  }

  private info(seq: number): StepInfo {
    const { task } = this.host;
    return { key: `${task.id}:${seq}`, attempt: task.attempts, seq };
  }
}

/**
 * A recorded sleep is over when the claim that started this run found the task due at or after its wake-up (both on
 * the database's clock: its suspension set run_at to the wake-up). Within a millisecond: each read of a time rounds the
 * stored microseconds its own way, and a sleep that never ended would suspend again and again.
 */
function sleptEnough(sleep: StepRecord, task: TaskRecord): boolean {
  return sleep.until === null || sleep.until.getTime() <= task.runAt.getTime() + 1;
}

function parse(json: string | null): unknown {
  return json === null ? null : JSON.parse(json);
}

function received<Payload>(json: string | null): EventResult<Payload> {
  return json === null ? { timedOut: true } : { timedOut: false, payload: parse(json) as Payload };
}

/** The step's result as JSON text; undefined is null. A value JSON cannot hold fails the step, naming it. */
function resultOf(taskName: string, stepName: string, value: unknown): string {
  if (value === undefined) return "null";
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    throw new StepError(taskName, stepName, `its result cannot be stored as JSON (${error instanceof Error ? error.message : String(error)}); return plain data.`);
  }
  return json ?? "null";
}
