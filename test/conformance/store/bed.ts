// The bed every store-level case runs on: one database of a dialect per test file, emptied between cases, a store on
// it (recorded, and broken on purpose when asked), and fixtures made through the store itself on the database clock.

import { expect } from "vitest";
import { openStore, type Store } from "../../../src/index.js";
import type { InsertedTask, PreparedTask } from "../../../src/store/enqueue-rows.js";
import type { TaskRecord } from "../../../src/store/task-record.js";
import type { ClaimFilter } from "../../../src/store/task-writes.js";
import { uuidv7 } from "../../../src/uuid.js";
import { brokenStore, type BrokenKind } from "../broken-stores.js";
import type { RawConnection, StoreDialect, StorePrisma } from "./dialects.js";
import { MemberRecord } from "./members.js";

/** One task to insert; everything has a default. */
export interface TaskSpec {
  id?: string;
  name?: string;
  queue?: string;
  payload?: unknown;
  priority?: number;
  delayMs?: number;
  runAt?: Date | null;
  maxAttempts?: number;
  key?: string | null;
  concurrencyKey?: string | null;
  traceContext?: string | null;
}

/** The task names and queues the suite's pretend workers take. */
export const NAMES = ["mail", "image"] as const;
export const QUEUES = ["default", "other"] as const;

/** A claim filter of a pretend worker that takes every task of the suite. */
export function filterFor(owner: string, leaseMs = 30_000, names: readonly string[] = NAMES, queues: readonly string[] = QUEUES): ClaimFilter {
  return { owner, leaseMs, names, queues };
}

/** The row enqueue would hand the store for `spec`. */
export function prepared(spec: TaskSpec = {}): PreparedTask {
  return {
    id: spec.id ?? uuidv7(),
    name: spec.name ?? "mail",
    queue: spec.queue ?? "default",
    json: JSON.stringify("payload" in spec ? spec.payload : { n: 1 }),
    priority: spec.priority ?? 0,
    delayMs: spec.delayMs ?? 0,
    runAt: spec.runAt ?? null,
    maxAttempts: spec.maxAttempts ?? 5,
    key: spec.key ?? null,
    ...(spec.concurrencyKey != null && { concurrencyKey: spec.concurrencyKey }),
    ...(spec.traceContext != null && { traceContext: spec.traceContext }),
  };
}

/**
 * Sends an insert request of `store` and reads its answer, as enqueue does: an input whose key an existing task holds
 * may come back without an id (the insert could not see that task), and tasksByKeys on the same store names it.
 */
export async function sendInsert(store: Store, rows: readonly PreparedTask[], publishes = false): Promise<InsertedTask[]> {
  const insert = store.insertTasks(rows, publishes);
  return settleKeys(store, await insert.read(await insert.request));
}

/** Fills in the answers without an id from tasksByKeys, as enqueue does; fails the case when a key finds nothing. */
export async function settleKeys(store: Store, answers: InsertedTask[]): Promise<InsertedTask[]> {
  const unseen = answers.filter((answer) => answer.id === null);
  if (unseen.length === 0) return answers;
  for (const answer of unseen) expect(answer, "an answer without an id is an existing key's").toMatchObject({ created: false, due: false, key: expect.any(String) });
  const found = new Map((await store.tasksByKeys(unseen.map((answer) => answer.key!))).map((row) => [row.key, row]));
  return answers.map((answer) => {
    if (answer.id !== null) return answer;
    expect(found.has(answer.key), `tasksByKeys finds ${answer.key}`).toBe(true);
    return { ...found.get(answer.key)!, i: answer.i };
  });
}

/** Resolves once `settled` is true or the database shows a writer waiting for another transaction's lock. */
export async function untilBlockedOrSettled(bed: StoreBed, settled: () => boolean): Promise<void> {
  while (!settled() && !(await bed.raw.writerBlocked())) await new Promise((resolve) => setTimeout(resolve, 2));
}

export class StoreBed {
  private readonly closers: Array<() => Promise<void>> = [];
  private prismaClient: StorePrisma | undefined;
  private browseIndex: boolean | undefined;

  /** The store every case asks: recorded, and broken while the bed is broken. */
  store: Store;
  /** The task names and queues the bed's own claims (claim, expired, succeed, kill) take. */
  takes: { names: readonly string[]; queues: readonly string[] } = { names: NAMES, queues: QUEUES };
  private brokenKind: BrokenKind | undefined;

  private constructor(
    readonly dialect: StoreDialect,
    readonly url: string,
    readonly raw: RawConnection,
    readonly record: MemberRecord,
    private readonly real: Store,
    private readonly drop: () => Promise<void>,
  ) {
    this.store = record.wrap(real);
  }

  /** A fresh database of `dialect` with a store on it. */
  static async open(dialect: StoreDialect, options: { record?: MemberRecord } = {}): Promise<StoreBed> {
    const database = await dialect.createDatabase();
    const raw = await dialect.raw(database.url);
    const real = openStore(database.url, { max: 4, ...dialect.storeOptions?.(database.url) });
    const bed = new StoreBed(dialect, database.url, raw, options.record ?? new MemberRecord(), real, () => database.drop());
    bed.closers.push(() => real.close());
    return bed;
  }

  /** The kind of broken store the cases now meet, if any. */
  get broken(): BrokenKind | undefined {
    return this.brokenKind;
  }

  /** From now on the cases meet the store broken as `kind` (undefined: the real store again). */
  breakAs(kind: BrokenKind | undefined): void {
    this.brokenKind = kind;
    this.store = this.record.wrap(kind ? brokenStore(this.real, kind) : this.real);
  }

  /** Empties the table before a case. */
  async reset(): Promise<void> {
    await this.raw.empty();
  }

  /** Another store on the same database (its own connections), recorded and broken as this bed's store. */
  other(): Store {
    const real = openStore(this.url, { max: 2, ...this.dialect.storeOptions?.(this.url) });
    this.closers.unshift(() => real.close().catch(() => {})); // a case may have closed it already
    return this.record.wrap(this.brokenKind ? brokenStore(real, this.brokenKind) : real);
  }

  /** The dialect's plain Prisma client on this database (one per bed). */
  prisma(): StorePrisma {
    if (!this.prismaClient) {
      const client = (this.prismaClient = this.dialect.prismaClient(this.url));
      this.closers.unshift(() => client.$disconnect());
    }
    return this.prismaClient;
  }

  /** Creates or drops the index browseIndexAdvice() names, as the case needs. */
  async setBrowseIndex(present: boolean): Promise<void> {
    if (this.browseIndex === present) return;
    if (present) await this.raw.exec(this.store.browseIndexAdvice());
    else await this.raw.dropBrowseIndex();
    this.browseIndex = present;
  }

  /** Inserts tasks through the store; resolves the store's answer, one per spec. */
  async insertRows(specs: readonly TaskSpec[], publishes = false): Promise<InsertedTask[]> {
    return sendInsert(this.store, specs.map(prepared), publishes);
  }

  /** Inserts tasks through the store; resolves their ids. */
  async insert(specs: readonly TaskSpec[] = [{}], publishes = false): Promise<string[]> {
    const rows = specs.map(prepared);
    await sendInsert(this.store, rows, publishes);
    return rows.map((row) => row.id);
  }

  /** Inserts one task; resolves its id. */
  async one(spec: TaskSpec = {}, publishes = false): Promise<string> {
    return (await this.insert([spec], publishes))[0]!;
  }

  /** Claims every id for `owner`, and fails the case when one was not claimed. */
  async claim(ids: readonly string[], owner = "worker-a", leaseMs = 30_000): Promise<TaskRecord[]> {
    const results = await this.store.claimByIds(ids, filterFor(owner, leaseMs, this.takes.names, this.takes.queues));
    const claimed = results.flatMap((result) => (result.claimed ? [result.claimed] : []));
    expect(claimed.map((task) => task.id).sort(), `claim of ${ids.length} tasks for ${owner}: ${JSON.stringify(results)}`).toEqual([...new Set(ids)].sort());
    return claimed;
  }

  /** Polls the database clock until it is past `at`. */
  async untilPast(at: Date): Promise<Date> {
    for (;;) {
      const now = await this.store.now();
      if (now.getTime() > at.getTime()) return now;
      await new Promise((resolve) => setTimeout(resolve, Math.min(20, Math.max(1, at.getTime() - now.getTime()))));
    }
  }

  /** Claims the tasks for `owner` with a lease of 1 ms and waits on the database clock until it has expired. */
  async expired(ids: readonly string[], owner = "lost-worker"): Promise<TaskRecord[]> {
    const claimed = await this.claim(ids, owner, 1);
    const latest = Math.max(...claimed.map((task) => task.leaseExpiresAt!.getTime()));
    await this.untilPast(new Date(latest));
    return claimed;
  }

  /** Claims and completes the tasks (succeeded). */
  async succeed(ids: readonly string[], owner = "finisher"): Promise<void> {
    await this.claim(ids, owner);
    expect(
      (
        await this.store.complete(
          owner,
          ids.map((id) => ({ id, resultJson: "null" })),
        )
      ).sort(),
    ).toEqual([...ids].sort());
  }

  /** Claims and fails the tasks for good (dead). */
  async kill(ids: readonly string[], owner = "finisher"): Promise<void> {
    await this.claim(ids, owner);
    const failed = await this.store.fail(
      owner,
      ids.map((id) => ({ id, error: "Error: gave up", delayMs: 0, finalReason: "unrecoverable" })),
    );
    expect(failed.map((task) => task.status)).toEqual(ids.map(() => "dead"));
  }

  /** The task as findTask reads it, without the clock; fails the case when it does not exist. */
  async task(id: string): Promise<TaskRecord> {
    const found = await this.store.findTask(id);
    expect(found, `task ${id}`).toBeDefined();
    const { now: _now, ...task } = found!;
    return task;
  }

  /**
   * Runs `op` while another transaction has written the row of `id` and not yet ended (it rolls back afterwards, so the
   * task is left as it was). Where the dialect locks rows, `op` runs and settles while the row is held; where one write
   * lock covers the database, `op` runs on another store, meets that lock, and settles once the writer is gone (or,
   * with `settleWhileHeld`, while it still holds the lock: an operation that gives up).
   */
  async duringWrite<T>(id: string, op: (store: Store) => Promise<T>, settleWhileHeld = false): Promise<T> {
    const rowLocks = this.dialect.writeLock === "row";
    const on = rowLocks ? this.store : this.other();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const rollback = new Error("roll back the holding transaction");
    const holder = this.store
      .transaction(async (tx) => {
        const task = await tx.findTask(id);
        if (task?.status === "pending") await tx.runTaskNow(id);
        else if (task?.status === "running") await tx.extendLeases(task.leaseOwner!, [id], 60_000);
        else await tx.retryTask(id);
        entered();
        await released;
        throw rollback;
      })
      .catch((error: unknown) => {
        entered();
        if (error !== rollback) throw error;
      });
    await inside;
    if (rowLocks || settleWhileHeld) {
      let settled = false;
      const result = op(on).finally(() => (settled = true));
      result.catch(() => {});
      try {
        // An operation that waits for the held row instead of skipping it never settles while the row is held: the
        // database shows it waiting, and the case fails (after the holder let go, so nothing is left hanging).
        while (rowLocks && !settled) {
          if (await this.raw.writerBlocked()) {
            release();
            await holder;
            await result.catch(() => {});
            throw new Error("the operation waited for the row another transaction is writing");
          }
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        return await result;
      } finally {
        release();
        await holder;
      }
    }
    expect(await this.raw.writerBlocked(), "the holding transaction has the write lock").toBe(true);
    const pending = op(on);
    release();
    await holder;
    return pending;
  }

  async close(): Promise<void> {
    for (const close of this.closers.splice(0)) await close();
    await this.raw.close();
    await this.drop();
  }
}
