// The store as a whole: its transactions, binding to an app's Prisma client, the table check and the error
// classification, readying a client, closing, its names and identity, and database notifications where it has them.

import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { NotAPrismaClientError, openStore, silentLogger } from "../../../src/index.js";
import type { InsertedTask } from "../../../src/store/enqueue-rows.js";
import type { Store } from "../../../src/store/store.js";
import { notifyChannel } from "../../../src/wakeups/notify/notify-channel.js";
import { DIALECTS } from "../../../src/dialects/index.js";
import { area } from "./area.js";
import { filterFor, prepared, sendInsert, type StoreBed } from "./bed.js";

class Rollback extends Error {}

/** Whether the dialect of this name can commit its own connection's writes without waiting for the flush. */
function hasAsyncCommit(dialect: string): boolean {
  return DIALECTS.find((candidate) => candidate.name === dialect)!.capabilities.asyncCommit;
}

/** A store of this bed's database on a table that does not exist. */
function storeWithoutTable(bed: StoreBed): Store {
  const store = bed.record.wrap(openStore(bed.url, { table: "no_such_tasks", max: 1 }));
  return store;
}

/**
 * An error of this dialect that waiting fixes: a server that refused the connection, or (one write lock for the whole
 * database) a write that met the lock for longer than its store waits.
 */
async function transientError(bed: StoreBed): Promise<{ store: Store; error: unknown }> {
  if (bed.dialect.unreachableUrl) {
    const store = bed.record.wrap(openStore(bed.dialect.unreachableUrl, { max: 1 }));
    const error = await store.findTask("01930000-0000-7000-8000-000000000022").then(
      () => undefined,
      (caught: unknown) => caught,
    );
    await store.close();
    return { store, error };
  }
  const [id] = await bed.insert();
  const impatient = bed.record.wrap(openStore(bed.url, { busyTimeoutMs: 20, max: 1 }));
  try {
    const error = await bed.duringWrite(
      id!,
      () =>
        impatient.cancelTask(id!).then(
          () => undefined,
          (caught: unknown) => caught,
        ),
      true,
    );
    return { store: impatient, error };
  } finally {
    await impatient.close();
  }
}

/** Listens on a fresh channel; resolves once listening, with what arrives by queue. */
async function listening(store: Store) {
  const channel = notifyChannel(`ptq_conf_${randomBytes(4).toString("hex")}`);
  const received: Array<{ queue: string; ids: string[] }> = [];
  const later: Array<{ queue: string; wakeups: Array<{ id: string; dueInMs: number }> }> = [];
  let ready!: () => void;
  const isReady = new Promise<void>((resolve) => (ready = resolve));
  const session = store.notifications!.listen(
    channel,
    { wakeup: (queue, ids) => received.push({ queue, ids }), later: (queue, wakeups) => later.push({ queue, wakeups }), listening: () => ready(), lost: () => {} },
    { logger: silentLogger },
  );
  await isReady;
  /** Sends a marker after everything before it and waits for it: what was sent earlier has arrived by then. */
  const settle = async () => {
    const marker = `01930000-0000-7000-8000-${randomBytes(6).toString("hex")}`;
    await store.notifications!.notify(channel, "marker", [marker]);
    for (let polls = 0; !received.some((r) => r.ids.includes(marker)); polls++) {
      if (polls > 1000) throw new Error("the marker notification never arrived");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const ids = () => received.filter((r) => r.queue !== "marker").flatMap((r) => r.ids);
  return { channel, received, later, settle, ids, close: () => session.close() };
}

export const sessionArea = area("session", {
  transaction: {
    "commits what the transaction's store wrote and resolves the function's value": async (bed) => {
      const row = prepared();
      const answer = await bed.store.transaction(async (tx) => {
        await sendInsert(tx, [row]);
        await tx.claimByIds([row.id], { owner: "tx", leaseMs: 30_000, names: ["mail"], queues: ["default"] });
        return "done";
      });
      expect(answer).toBe("done");
      expect(await bed.task(row.id)).toMatchObject({ status: "running", leaseOwner: "tx" });
    },

    "rolls back everything it wrote when the function throws, and rejects with that error": async (bed) => {
      const [kept] = await bed.insert();
      const row = prepared();
      const failure = new Error("the business write failed");
      await expect(
        bed.store.transaction(async (tx) => {
          await sendInsert(tx, [row]);
          await tx.cancelTask(kept!);
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await bed.store.findTask(row.id)).toBeUndefined();
      expect((await bed.task(kept!)).status).toBe("pending");
    },

    "another store sees nothing of it before the commit": async (bed) => {
      const other = bed.other();
      const row = prepared();
      await bed.store.transaction(async (tx) => {
        await sendInsert(tx, [row]);
        expect(await tx.findTask(row.id)).toBeDefined();
        expect(await other.findTask(row.id)).toBeUndefined();
      });
      expect(await other.findTask(row.id)).toBeDefined();
    },

    "a store bound to a transaction cannot open another": async (bed) => {
      await bed.store.transaction(async (tx) => {
        await expect(tx.transaction(async () => "nested")).rejects.toThrow(/transaction/);
      });
    },
  },

  through: {
    "runs through the app's Prisma client: inside its transaction, writes commit with it and vanish with its rollback": async (bed) => {
      const prisma = bed.prisma();
      const [committed, rolledBack] = [prepared(), prepared()];
      await prisma.$transaction(async (tx: unknown) => {
        const store = bed.store.through(tx);
        await sendInsert(store, [committed]);
        expect(await store.findTask(committed.id)).toBeDefined();
      });
      await expect(
        prisma.$transaction(async (tx: unknown) => {
          await sendInsert(bed.store.through(tx), [rolledBack]);
          throw new Rollback();
        }),
      ).rejects.toBeInstanceOf(Rollback);
      expect(await bed.store.findTask(committed.id)).toBeDefined();
      expect(await bed.store.findTask(rolledBack.id)).toBeUndefined();
      expect(await bed.store.through(prisma).findTask(committed.id)).toBeDefined();
    },

    "an insert request is not sent until awaited, and joins a batch $transaction([...]): a failed batch leaves nothing": async (bed) => {
      const prisma = bed.prisma();
      const store = bed.store.through(prisma);
      const unsent = prepared();
      store.insertTasks([unsent], false);
      const [kept, lost] = [prepared(), prepared()];
      const insert = store.insertTasks([kept], false);
      const [result] = (await prisma.$transaction([insert.request, prisma.$queryRawUnsafe("SELECT 1 AS one")])) as unknown[];
      expect((await insert.read(result)).map((answer: InsertedTask) => answer.id)).toEqual([kept.id]);
      const failing = store.insertTasks([lost], false);
      await expect(prisma.$transaction([failing.request, prisma.$queryRawUnsafe("SELECT * FROM no_such_table")])).rejects.toThrow();
      expect(await bed.store.findTask(kept.id)).toBeDefined();
      expect(await bed.store.findTask(lost.id)).toBeUndefined();
      expect(await bed.store.findTask(unsent.id)).toBeUndefined();
    },

    "refuses what is not a Prisma client": async (bed) => {
      expect(() => bed.store.through({})).toThrow(NotAPrismaClientError);
      expect(() => bed.store.through(null)).toThrow(
        "store.through() takes a Prisma client or transaction client (one with $queryRawUnsafe and $executeRawUnsafe), but was given null.",
      );
    },
  },

  withAsyncCommit: {
    "exists exactly where the dialect has the capability, and never for a store bound to an app's Prisma client": async (bed) => {
      const relaxed = bed.store.withAsyncCommit();
      expect(relaxed !== undefined).toBe(hasAsyncCommit(bed.dialect.name));
      expect(bed.store.through(bed.prisma()).withAsyncCommit()).toBeUndefined();
    },

    "claims, completes and fails as the store does; another connection sees each write at once; closing it closes nothing": {
      when: (dialect) => hasAsyncCommit(dialect.name),
      run: async (bed) => {
        const relaxed = bed.store.withAsyncCommit()!;
        const [done, failed, due] = await bed.insert([{}, {}, {}]);
        const claimed = await relaxed.claimByIds([done!, failed!], filterFor("worker-a"));
        expect(claimed.map((result) => result.claimed?.status)).toEqual(["running", "running"]);
        expect((await relaxed.claimDue(5, filterFor("worker-a"))).map((task) => task.id)).toEqual([due]);
        expect(await relaxed.complete("worker-a", [{ id: done!, resultJson: "7" }])).toEqual([done]);
        expect(await relaxed.complete("worker-b", [{ id: due!, resultJson: "null" }])).toEqual([]);
        expect((await relaxed.fail("worker-a", [{ id: failed!, error: "Error: boom", delayMs: 0, finalReason: null }])).map((row) => row.status)).toEqual(["pending"]);
        const other = bed.other();
        expect(await other.findTask(done!)).toMatchObject({ status: "succeeded", result: 7, finishedBy: "worker-a" });
        expect(await other.findTask(failed!)).toMatchObject({ status: "pending", lastError: "Error: boom" });
        expect(await other.findTask(due!)).toMatchObject({ status: "running", leaseOwner: "worker-a" });
        await relaxed.close();
        expect(await bed.store.findTask(done!)).toMatchObject({ status: "succeeded" });
        expect(await relaxed.transaction((tx) => tx.findTask(due!))).toMatchObject({ status: "running" });
      },
    },
  },

  check: {
    "a healthy table: no problem": async (bed) => {
      expect(await bed.store.check()).toBeUndefined();
    },

    "a table that does not exist: missing-table, which waiting does not fix": async (bed) => {
      const store = storeWithoutTable(bed);
      try {
        expect(await store.check()).toMatchObject({ kind: "missing-table", lasting: true, message: expect.any(String) });
      } finally {
        await store.close();
      }
    },

    "a server that does not answer: unreachable, which waiting may fix": {
      when: (dialect) => dialect.unreachableUrl !== undefined,
      run: async (bed) => {
        const store = bed.record.wrap(openStore(bed.dialect.unreachableUrl!, { max: 1 }));
        try {
          expect(await store.check()).toMatchObject({ kind: "unreachable", lasting: false });
        } finally {
          await store.close();
        }
      },
    },
  },

  classify: {
    "an operation's error on a missing table is missing-table, lasting": async (bed) => {
      const store = storeWithoutTable(bed);
      try {
        const error = await store.findTask("01930000-0000-7000-8000-000000000033").then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error).toBeDefined();
        expect(bed.store.classify(error)).toMatchObject({ kind: "missing-table", lasting: true });
      } finally {
        await store.close();
      }
    },

    "an error that waiting fixes (a refused connection; one write lock: a write that met it too long) is not lasting": async (bed) => {
      const { error } = await transientError(bed);
      expect(error).toBeDefined();
      expect(bed.store.classify(error)).toMatchObject({ kind: "unreachable", lasting: false });
    },

    "an error it does not know is other": async (bed) => {
      expect(bed.store.classify(new Error("something else"))).toMatchObject({ kind: "other", message: "something else" });
      expect(bed.store.classify("not even an error").kind).toBe("other");
    },
  },

  prepare: {
    "readies the store's own connection and the app's client without a problem, never rejecting": async (bed) => {
      const own = await bed.store.prepare();
      expect(own.problem).toBeUndefined();
      if (own.wakeupIdentity !== undefined) expect(own.wakeupIdentity).toBe(bed.store.wakeupIdentity);
      const bound = bed.store.through(bed.prisma());
      const report = await bound.prepare();
      expect(report.problem).toBeUndefined();
      expect(report.wakeupIdentity).toBe(bed.store.wakeupIdentity ?? undefined);
      expect(await bed.store.through(bed.prisma()).findTask("01930000-0000-7000-8000-000000000044")).toBeUndefined();
    },
  },

  sharedConnection: {
    "is true exactly where a statement outside a transaction of the app's client sees that transaction's rows": async (bed) => {
      const prisma = bed.prisma();
      const row = prepared();
      let seen: boolean | undefined;
      await prisma
        .$transaction(async (tx: unknown) => {
          await sendInsert(bed.store.through(tx), [row]);
          // A raw statement on the client itself, outside the transaction, while the transaction is open.
          seen = (await bed.store.through(bed.prisma()).findTask(row.id)) !== undefined;
          throw new Rollback();
        })
        .catch((error: unknown) => {
          if (!(error instanceof Rollback)) throw error;
        });
      expect(seen).toBe(bed.store.sharedConnection);
    },
  },

  endFailedTransaction: {
    "resolves when no transaction is open, and the store and the client work afterwards": async (bed) => {
      const prisma = bed.prisma();
      const bound = bed.store.through(prisma);
      for (const store of [bed.store, bound]) await expect(store.endFailedTransaction()).resolves.toBeUndefined();
      await expect(prisma.$transaction(async () => Promise.reject(new Rollback()))).rejects.toBeInstanceOf(Rollback);
      await expect(bound.endFailedTransaction()).resolves.toBeUndefined();
      const row = prepared();
      await prisma.$transaction(async (tx: unknown) => void (await sendInsert(bed.store.through(tx), [row])));
      expect(await bed.store.findTask(row.id)).toBeDefined();
    },
  },

  close: {
    "closes the store's own connections: operations afterwards reject; a store bound to a client leaves the client open": async (bed) => {
      const own = bed.other();
      const [id] = await bed.insert();
      expect(await own.findTask(id!)).toBeDefined();
      await own.close();
      await expect(own.findTask(id!)).rejects.toThrow();
      const prisma = bed.prisma();
      await bed.store.through(prisma).close();
      expect(await bed.store.through(prisma).findTask(id!)).toBeDefined();
    },
  },

  dialect: {
    "names its dialect, and its database for people": async (bed) => {
      expect(bed.store.dialect).toBe(bed.dialect.name);
      expect(bed.other().dialect).toBe(bed.dialect.name);
      expect(bed.store.displayName).toMatch(/^[A-Z]/);
    },
  },

  wakeupIdentity: {
    "the same for two stores of one database, none for another; a store bound to a client learns it with prepare()": async (bed) => {
      const identity = bed.store.wakeupIdentity;
      expect(identity === undefined || typeof identity === "string").toBe(true);
      expect(bed.other().wakeupIdentity).toBe(identity);
      const elsewhere = await bed.dialect.createDatabase();
      const stranger = openStore(elsewhere.url, { max: 1 });
      try {
        if (identity !== undefined) expect(stranger.wakeupIdentity).not.toBe(identity);
        else expect(stranger.wakeupIdentity).toBeUndefined();
      } finally {
        await stranger.close();
        await elsewhere.drop();
      }
      expect(bed.store.through(bed.prisma()).wakeupIdentity).toBe(identity === undefined ? undefined : null);
    },
  },

  notifications: {
    "present exactly where the dialect has database notifications": async (bed) => {
      expect(bed.store.notifications !== undefined).toBe(bed.dialect.notifications);
    },

    "a listening session receives what notify sends, with its queue": {
      when: (dialect) => dialect.notifications,
      run: async (bed) => {
        const session = await listening(bed.store);
        try {
          const ids = [prepared().id, prepared().id];
          await bed.store.notifications!.notify(session.channel, "other", ids);
          await session.settle();
          expect(session.received.filter((r) => r.queue !== "marker")).toEqual([{ queue: "other", ids }]);
        } finally {
          await session.close();
        }
      },
    },

    "notifyLater sends wake-ups that say when, counted on the database's clock": {
      when: (dialect) => dialect.notifications,
      run: async (bed) => {
        const session = await listening(bed.store);
        try {
          const [soon, later] = [prepared().id, prepared().id];
          await bed.store.notifications!.notifyLater(session.channel, "other", [
            { id: soon, dueInMs: 2_000 },
            { id: later, dueInMs: 60_000 },
          ]);
          await session.settle();
          expect(session.ids()).toEqual([]); // none says "due now"
          const heard = session.later.flatMap((message) => message.wakeups.map((wakeup) => ({ queue: message.queue, ...wakeup })));
          expect(heard.map((wakeup) => [wakeup.queue, wakeup.id])).toEqual([
            ["other", soon],
            ["other", later],
          ]);
          // The time left as the listener counts it: at most what was sent (a little has passed), not much less.
          expect(heard[0]!.dueInMs).toBeGreaterThan(1_000);
          expect(heard[0]!.dueInMs).toBeLessThanOrEqual(2_001);
          expect(heard[1]!.dueInMs).toBeGreaterThan(59_000);
          expect(heard[1]!.dueInMs).toBeLessThanOrEqual(60_001);
        } finally {
          await session.close();
        }
      },
    },

    "an insert with notifyChannel sends the due tasks' wake-ups with its commit: not before, not for a delayed task, never after a rollback": {
      when: (dialect) => dialect.notifications,
      run: async (bed) => {
        const session = await listening(bed.store);
        try {
          const [due, delayed, rolledBack] = [prepared(), prepared({ delayMs: 3_600_000 }), prepared()];
          await bed.store.transaction(async (tx) => {
            const insert = tx.insertTasks([due, delayed], true, session.channel);
            await insert.read(await insert.request);
            await session.settle();
            expect(session.ids()).toEqual([]);
          });
          await expect(
            bed.store.transaction(async (tx) => {
              const insert = tx.insertTasks([rolledBack], true, session.channel);
              await insert.read(await insert.request);
              throw new Rollback();
            }),
          ).rejects.toBeInstanceOf(Rollback);
          await session.settle();
          expect(session.ids()).toEqual([due.id]);
        } finally {
          await session.close();
        }
      },
    },
  },
});
