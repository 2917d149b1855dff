// The claims of limited queues, written once over each dialect's gate units: in one transaction that holds the queue's
// row locked, count what runs (and what started within the rate window), pick the due tasks that fit, claim them by id.
// The running rows are the slots: a run that ends in any way (done, failed, released, recovered) frees its slot once.

import type { Db } from "./db.js";
import type { LimitedCandidate, LimitedIdRow, QueueLimits, QueueUsage } from "./queue-controls.js";
import type { TaskRecord } from "./task-record.js";
import type { ClaimByIdResult, ClaimFilter } from "./task-writes.js";

/** A dialect's SQL units for the claims of limited queues; each runs inside the claim's transaction. */
export interface GateUnits<D extends Db, T> {
  /**
   * Locks the queue's row until the transaction ends (creating it when missing), so that the claims of a limited queue
   * count one after the other; resolves whether the queue is paused. SQLite: its write transaction already serialises.
   */
  lockQueue(db: D, table: T, queue: string): Promise<{ paused: boolean }>;
  /**
   * In one statement: the queue's running tasks, and, with a rate window of `perMs` (database clock), the starts
   * recorded within it and in how many ms the oldest of them leaves it (0 and 0 without a window).
   */
  usage(db: D, table: T, queue: string, perMs: number | undefined): Promise<QueueUsage>;
  /**
   * Optional: the claim of `ids` when every claimable one fits the concurrency and the rate limit, in as few statements
   * as the dialect can: it takes the queue's lock itself (before or after locking the ids, the dialect's choice), reads
   * the usage as `usage` does after that lock, and claims the ids (as the dialect's claim by ids, one result per id) and
   * records their starts only when they fit. `results` undefined: the queue is paused or they did not fit, nothing is
   * claimed, and the queue's lock is held (the caller goes on under it). Without it, the claim runs lockQueue, usage,
   * the claim by ids and recordStarts one after another.
   */
  claimIfRoom?(
    db: D,
    table: T,
    queue: string,
    ids: readonly string[],
    filter: ClaimFilter,
    limits: QueueLimits,
  ): Promise<{ paused: boolean; results?: ClaimByIdResult[] }>;
  /** Records `starts` starts now and deletes the queue's rows that left the window. */
  recordStarts(db: D, table: T, queue: string, starts: number, perMs: number): Promise<void>;
  /**
   * At most `limit` due pending tasks of the queue among `names`, best first (priority, then run_at), skipping those
   * whose group (name and concurrency key) already runs `groupLimits[name]` tasks.
   */
  dueCandidates(db: D, table: T, queue: string, names: readonly string[], groupLimits: Readonly<Record<string, number>>, limit: number): Promise<LimitedCandidate[]>;
  /** The rows among `ids`, whatever their queue; a pending one of a name in `groupNames` with its group's running count (else 0). */
  idRows(db: D, table: T, ids: readonly string[], groupNames: readonly string[]): Promise<LimitedIdRow[]>;
}

/** Rounds of candidates a due claim reads at most when tasks of one group fill its batches. */
const GROUP_ROUNDS = 4;

/** The store's own claim by ids, called inside the limited claim's transaction with the chosen ids. */
type ClaimUnit<D, T> = (db: D, table: T, ids: readonly string[], filter: ClaimFilter) => Promise<ClaimByIdResult[]>;

/**
 * The filter without limits, for the unlimited queues, or (`counted`) for one limited queue's ids under its lock: only
 * then may the claim take tasks of a queue whose row declares limits.
 */
export function withoutLimits(filter: ClaimFilter, queues: readonly string[], counted = false): ClaimFilter {
  return { owner: filter.owner, leaseMs: filter.leaseMs, names: filter.names, queues, ...(counted && { counted }) };
}

/** The limited queues among the filter's, and the others. */
export function splitQueues(filter: ClaimFilter): { limited: string[]; free: string[] } {
  const limits = filter.limits ?? {};
  const limited = filter.queues.filter((queue) => limits[queue] !== undefined);
  return { limited, free: filter.queues.filter((queue) => limits[queue] === undefined) };
}

export class LimitedClaims<D extends Db, T> {
  constructor(
    private readonly gate: GateUnits<D, T>,
    private readonly claimIds: ClaimUnit<D, T>,
    private readonly table: T,
  ) {}

  /**
   * Claims up to `limit` due tasks of one limited queue. The candidates skip groups already full; when a batch holds more
   * tasks of one group than it may start, those are left and the next round (the batch's own claims now counted as
   * running) reads past them, so a backlog of one key never holds back the others.
   */
  async claimDue(db: D, queue: string, limit: number, filter: ClaimFilter): Promise<TaskRecord[]> {
    const limits = filter.limits![queue]!;
    return this.inTransaction(db, async (tx) => {
      const { room } = await this.room(tx, queue, limits, limit, filter);
      const claimed: TaskRecord[] = [];
      for (let round = 0; round < GROUP_ROUNDS && claimed.length < room; round++) {
        const left = room - claimed.length;
        const candidates = await this.gate.dueCandidates(tx, this.table, queue, filter.names, limits.tasks ?? {}, left);
        const chosen = fitGroups(candidates, limits, left);
        const results = await this.claim(
          tx,
          queue,
          chosen.map((row) => row.id),
          filter,
          limits,
        );
        claimed.push(...results.flatMap((result) => (result.claimed ? [result.claimed] : [])));
        if (chosen.length === candidates.length) break; // nothing held back by a group: no more to find
        if (round === GROUP_ROUNDS - 1) filter.refused?.({ queue, reason: "limited" });
      }
      return claimed;
    });
  }

  /**
   * Claims `ids` for a filter with limited queues: the ids of each limited queue in a transaction of their own that
   * takes those that fit (the others say "paused" or "limited"), the rest as an unlimited claim does.
   */
  async claimByIds(db: D, ids: readonly string[], filter: ClaimFilter): Promise<ClaimByIdResult[]> {
    const { limited, free } = splitQueues(filter);
    // One limited queue served alone (the common case): straight into its transaction, no read before.
    if (limited.length === 1 && free.length === 0) return this.claimQueueIds(db, limited[0]!, ids, filter);
    const rows = await this.gate.idRows(db, this.table, ids, []);
    const queueOf = new Map(rows.map((row) => [row.id, row.queue]));
    const results = new Map<string, ClaimByIdResult>();
    for (const queue of limited) {
      const mine = ids.filter((id) => queueOf.get(id) === queue);
      if (mine.length > 0) for (const result of await this.claimQueueIds(db, queue, mine, filter)) results.set(result.id, result);
    }
    const rest = ids.filter((id) => !results.has(id));
    if (rest.length > 0) for (const result of await this.claimIds(db, this.table, rest, withoutLimits(filter, free))) results.set(result.id, result);
    return ids.map((id) => results.get(id) ?? { id, claimed: null, reason: "missing" });
  }

  /** Claims those of `ids` in `queue` that fit its limits; ids of other queues come back "not-ours". */
  private claimQueueIds(db: D, queue: string, ids: readonly string[], filter: ClaimFilter): Promise<ClaimByIdResult[]> {
    const limits = filter.limits![queue]!;
    const unlimited = withoutLimits(filter, [queue], true);
    return this.inTransaction(db, async (tx) => {
      let locked: { paused: boolean } | undefined;
      if (limits.tasks === undefined) {
        // No limit per key: when the queue has room for every id, the claim itself tells each id's fate, no read first
        // (with claimIfRoom, the room is read and the ids claimed in one statement after the lock).
        if (this.gate.claimIfRoom) {
          const attempt = await this.gate.claimIfRoom(tx, this.table, queue, ids, unlimited, limits);
          if (attempt.results) {
            filter.fitted?.(queue);
            return attempt.results;
          }
          locked = { paused: attempt.paused };
        } else {
          // Room for fewer than every id is not a refusal yet (some ids may not be claimable): the reading below tells.
          const { room } = await this.room(tx, queue, limits, ids.length, { ...filter, refused: undefined });
          if (room >= ids.length) return this.claim(tx, queue, ids, filter, limits);
        }
      }
      // The lock first: the groups' running counts read after it include every claim that committed before it.
      const lock = locked ?? (await this.gate.lockQueue(tx, this.table, queue));
      const names = new Set(filter.names);
      const rows = await this.gate.idRows(tx, this.table, ids, Object.keys(limits.tasks ?? {}));
      const claimable = rows.filter((row) => row.queue === queue && row.status === "pending" && row.due && names.has(row.name));
      // The ids that may not be claimed now say why from the rows read under the lock. A claim of them would count
      // nothing: one that came due (or pending) since that read would start past the limits.
      const byId = new Map(rows.map((row) => [row.id, row]));
      if (claimable.length === 0) return ids.map((id) => unclaimable(id, byId.get(id)));
      const { room, paused } = await this.room(tx, queue, limits, claimable.length, filter, lock);
      const chosen = room === 0 ? [] : fitGroups(claimable, limits, room);
      const chosenIds = new Set(chosen.map((row) => row.id));
      const refused = new Map(claimable.filter((row) => !chosenIds.has(row.id)).map((row) => [row.id, row]));
      if (refused.size > 0 && room > 0) filter.refused?.({ queue, reason: "limited" }); // a group at its limit
      const claimed = new Map((await this.claim(tx, queue, [...chosenIds], filter, limits)).map((result) => [result.id, result]));
      return ids.map((id): ClaimByIdResult => {
        const row = refused.get(id);
        if (row) return { id, claimed: null, reason: paused ? "paused" : "limited", name: row.name, queue: row.queue };
        return claimed.get(id) ?? unclaimable(id, byId.get(id));
      });
    });
  }

  /**
   * Locks the queue's row (unless `locked`: the lock this transaction took already) and says how many of `wanted` tasks
   * may start now: 0 while paused or at a limit. Tells the filter's `refused` when it is fewer than wanted.
   */
  private async room(
    tx: D,
    queue: string,
    limits: QueueLimits,
    wanted: number,
    filter: ClaimFilter,
    locked?: { paused: boolean },
  ): Promise<{ room: number; paused: boolean }> {
    const { paused } = locked ?? (await this.gate.lockQueue(tx, this.table, queue));
    if (paused) {
      filter.refused?.({ queue, reason: "paused" });
      return { room: 0, paused };
    }
    let room = wanted;
    let retryInMs: number | undefined;
    const { running, starts, freesInMs } = await this.gate.usage(tx, this.table, queue, limits.rateLimit?.perMs);
    if (limits.concurrency !== undefined) room = Math.min(room, limits.concurrency - running);
    if (limits.rateLimit !== undefined) {
      const left = limits.rateLimit.starts - starts;
      if (left < room) retryInMs = Math.max(1, freesInMs);
      room = Math.min(room, left);
    }
    room = Math.max(0, room);
    if (room < wanted) filter.refused?.({ queue, reason: "limited", ...(retryInMs !== undefined && { retryInMs }) });
    else filter.fitted?.(queue);
    return { room, paused };
  }

  /** Claims `ids` (the chosen ones, under the queue's lock) and records their starts for a rate-limited queue. */
  private async claim(tx: D, queue: string, ids: readonly string[], filter: ClaimFilter, limits: QueueLimits): Promise<ClaimByIdResult[]> {
    if (ids.length === 0) return [];
    const results = await this.claimIds(tx, this.table, ids, withoutLimits(filter, [queue], true));
    const started = results.filter((result) => result.claimed).length;
    if (limits.rateLimit !== undefined && started > 0) await this.gate.recordStarts(tx, this.table, queue, started, limits.rateLimit.perMs);
    return results;
  }

  private inTransaction<R>(db: D, fn: (tx: D) => Promise<R>): Promise<R> {
    // A Db's transaction hands its callback a Db of the same kind; a Db that is a transaction already runs fn in it.
    return db.transaction ? db.transaction((tx) => fn(tx as D)) : fn(db);
  }
}

/**
 * Why the id of a row read under the queue's lock was not claimable: missing, not pending, not due, or not of the
 * queue and names claimed. `row` undefined: no such task.
 */
function unclaimable(id: string, row: LimitedIdRow | undefined): ClaimByIdResult {
  if (!row) return { id, claimed: null, reason: "missing" };
  const reason = row.status !== "pending" ? "not-pending" : !row.due ? "not-due" : "not-ours";
  return { id, claimed: null, reason, name: row.name, queue: row.queue };
}

/**
 * The candidates, in their order, that fit `room` and their group's limit: a group (name and concurrency key) with a
 * limit takes at most limit - runningInGroup of them.
 */
export function fitGroups<C extends LimitedCandidate>(candidates: readonly C[], limits: QueueLimits, room: number): C[] {
  const taken = new Map<string, number>();
  const chosen: C[] = [];
  for (const candidate of candidates) {
    if (chosen.length >= room) break;
    const groupLimit = limits.tasks?.[candidate.name];
    if (groupLimit !== undefined) {
      const group = `${candidate.name}\u0000${candidate.concurrencyKey ?? ""}`;
      const inBatch = taken.get(group) ?? 0;
      if (candidate.runningInGroup + inBatch >= groupLimit) continue;
      taken.set(group, inBatch + 1);
    }
    chosen.push(candidate);
  }
  return chosen;
}
