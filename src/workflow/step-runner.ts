// ctx.step of one run: numbers the handler's steps in the order it asks for them, replays what earlier runs recorded
// (read once per run, on the first step), records what this run does, and ends the run with a suspension when a sleep
// or a wait has to wait. A handler that never asks for a step never reaches this file.

import type { TaskRecord } from "../store/task-record.js";
import type { Store } from "../store/store.js";
import { MAX_STEP_NAME_LENGTH, type NewStep, type StepKind, type StepRecord, type Suspension } from "../store/steps.js";
import { transactionGate } from "../enqueue/transaction-gate.js";
import { TaskLeaseLostError } from "../worker/worker-errors.js";
import type { EventResult, StepInfo, WaitOptions, WorkflowSteps } from "./steps-api.js";
import { StepError, WorkflowNondeterminismError } from "./workflow-errors.js";
import { runScopeOf } from "../telemetry/telemetry.js";

/** The longest sleep or wait: about ten years. */
const MAX_WAIT_MS = 10 * 366 * 24 * 3600 * 1000;

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

  private async transactionStep<Result>(seq: number, name: string, fn: (tx: unknown, info: StepInfo) => Promise<Result>): Promise<Awaited<Result>> {
    if (this.host.prisma === undefined)
      throw new StepError(this.host.task.name, name, "a transactional step needs the worker's `prisma` option (the client extended with taskQueue()).");
    const prior = await this.prior(seq, name, "transaction");
    if (prior) return parse(prior.resultJson) as Awaited<Result>;
    this.host.checkRunning();
    const { store, owner, task } = this.host;
    const prisma = this.host.prisma as { $transaction(fn: (tx: unknown) => Promise<unknown>): Promise<unknown> };
    const gate = transactionGate(prisma, store);
    const attempt = () =>
      prisma.$transaction(async (tx) => {
        const json = resultOf(task.name, name, await fn(tx, this.info(seq)));
        this.host.checkRunning();
        const { written } = await store.through(tx).recordStep(owner, this.newStep(seq, name, "transaction", json));
        if (!written) throw new StepTakenError();
        return json;
      }) as Promise<string>;
    try {
      const json = await (gate ? gate.run(attempt, () => store.through(prisma).endFailedTransaction()) : attempt());
      return parse(json) as Awaited<Result>;
    } catch (error) {
      if (error instanceof StepTakenError) return (await this.taken(seq, name, "transaction")) as Awaited<Result>;
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
