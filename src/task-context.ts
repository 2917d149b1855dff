// What a handler receives besides its payload, typed by the app's own Prisma client: ctx.prisma is that client and
// ctx.tx its transaction client, each with the registry's enqueue methods on the task model.

import type { Logger } from "./logger.js";
import type { TaskRecord } from "./store/task-record.js";
import type { WorkflowSteps } from "./workflow/steps-api.js";

/**
 * The transaction client of a Prisma client: the type of `tx` in its `$transaction(async (tx) => …)`, which Prisma
 * defines as the client without `$connect`, `$disconnect`, `$on`, `$extends` (and, before Prisma 7, `$transaction`).
 * Read from the client's own signature, so it matches the generated `Prisma.TransactionClient` of any version.
 */
export type TransactionClientOf<Client> = Client extends { $transaction(fn: (tx: infer Tx) => unknown, ...rest: never[]): unknown } ? Tx : never;

/** The options of a client's `$transaction(async (tx) => …, options)`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- with `unknown` or `never` here, Prisma's overloads no longer match and the options are lost
type TransactionOptionsOf<Client> = Client extends { $transaction(fn: (tx: any) => any, options?: infer Options): any } ? Options : never;

/**
 * A client with `Added` (the registry's enqueue methods), whose `$transaction(async (tx) => …)` hands out a
 * transaction client with `Added` too, as the client extended with taskQueue() does at run time. The client's own
 * `$transaction` overloads (the batch form) stay, after this one.
 */
export type ClientWith<Client, Added> = Omit<Client, "$transaction"> &
  Added & {
    $transaction: (<Result>(fn: (tx: TransactionClientOf<Client> & Added) => Promise<Result>, options?: TransactionOptionsOf<Client>) => Promise<Result>) &
      (Client extends { $transaction: infer Transaction } ? Transaction : unknown);
  };

/** A tagged raw statement, as every Prisma client and transaction client offers it. */
type RawCall<Result> = (query: TemplateStringsArray, ...values: unknown[]) => PromiseLike<Result>;

/**
 * The transaction client a handler sees when its registry names no client type: only the raw statements every
 * Prisma client has. Name your client, `defineTasks<PrismaClient>()({ … })`, to reach your models (`ctx.tx.report`).
 */
export interface UntypedTransactionClient {
  $executeRaw: RawCall<number>;
  $queryRaw: RawCall<unknown>;
}

/**
 * The client a handler sees when its registry names no client type: the raw statements and `$transaction`.
 * Name your client, `defineTasks<PrismaClient>()({ … })`, to reach your models (`ctx.prisma.report`).
 */
export interface UntypedClient extends UntypedTransactionClient {
  $transaction<Result>(fn: (tx: UntypedTransactionClient) => Promise<Result>, options?: { maxWait?: number; timeout?: number }): Promise<Result>;
}

/**
 * What every handler receives besides its payload. `Prisma` and `Tx` are the types of `prisma` and `tx`;
 * defineTasks fills them from the client type it is given (see TaskContextOf).
 */
export interface TaskContext<
  Prisma = UntypedClient,
  Tx = TransactionClientOf<Prisma> | undefined,
  StepTx = [Tx] extends [undefined] ? TransactionClientOf<Prisma> : Exclude<Tx, undefined>,
> {
  /** The task row as claimed (attempts already counts this run). */
  task: TaskRecord;
  /** 1 for the first run, 2 for the first retry, … */
  attempt: number;
  /** Aborted when the task's timeout passes, its lease is lost, or the worker is shutting down for good; `signal.reason` says which. */
  signal: AbortSignal;
  /** Logger whose lines carry the task's id and name. */
  logger: Logger;
  /**
   * The worker's `prisma` option: at run time your client EXTENDED with taskQueue(). Typed as the client named in
   * `defineTasks<Client>()` plus the registry's `enqueue`/`enqueueMany` on the task model, on it and on the `tx` of its
   * `$transaction(async (tx) => …)` (ClientWith); other extensions you added are there at run time but not in this
   * type. Undefined at run time when the worker was given no `prisma`, though the type does not say so.
   */
  prisma: Prisma;
  /**
   * With `transactional: true`: the transaction that marks the task succeeded; write through it for exactly-once
   * effects. Typed as the transaction client of the named client plus the registry's enqueue methods, so a follow-up
   * task enqueued through it commits (or rolls back) with the task. Without `transactional: true` it is `undefined`.
   */
  tx: Tx;
  /**
   * The handler's durable steps (a workflow): each step runs once per task and later runs replay its recorded result;
   * sleeps and waits for events hand the task back to the queue meanwhile. See WorkflowSteps and docs/workflows.md.
   * Not in a handler with `transactional: true` (use ctx.step.transaction instead).
   */
  step: WorkflowSteps<StepTx>;
}
