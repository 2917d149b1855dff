// Store misuse a caller can meet fails with a coded TaskQueueError that names the bad value and the fix: a value that
// is no Prisma client where one belongs, and a store used after its close().

import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotAPrismaClientError, openStore, TaskStoreClosedError, TaskStoreNoTransactionError } from "../../src/index.js";
import { testPrisma } from "../support/prisma.js";
import { createSqliteDatabase, type SqliteTestDatabase } from "../support/sqlite.js";

describe("a value that is no Prisma client", () => {
  it("store.through() refuses it, naming the value and what to pass", async () => {
    const store = openStore("postgresql://postgres@127.0.0.1:5432/none");
    try {
      let thrown: unknown;
      try {
        store.through({ name: "not a client" });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(NotAPrismaClientError);
      expect(thrown).toMatchObject({
        code: "TASK_NOT_A_PRISMA_CLIENT",
        message:
          'store.through() takes a Prisma client or transaction client (one with $queryRawUnsafe and $executeRawUnsafe), but was given {"name":"not a client"}. ' +
          "Pass your PrismaClient (extended or not), or the tx that prisma.$transaction(async (tx) => ...) hands its callback.",
      });
    } finally {
      await store.close();
    }
  });
});

describe("transaction() on a store bound to a Prisma client", () => {
  it("PostgreSQL: rejects with TASK_STORE_NO_TRANSACTION, pointing at openStore()", async () => {
    const url = "postgresql://postgres@127.0.0.1:5432/none";
    const store = openStore(url);
    const prisma = testPrisma(url);
    try {
      const failure = store.through(prisma).transaction(async () => "never");
      await expect(failure).rejects.toBeInstanceOf(TaskStoreNoTransactionError);
      await expect(failure).rejects.toMatchObject({
        code: "TASK_STORE_NO_TRANSACTION",
        message:
          "transaction() cannot open a transaction on this store: it is bound to a Prisma transaction client (on PostgreSQL, to any " +
          "Prisma client), whose statements run in the app's own transactions. Call transaction() on a store from openStore(url), " +
          "or run the work in prisma.$transaction(async (tx) => ...) through store.through(tx).",
      });
    } finally {
      await prisma.$disconnect();
      await store.close();
    }
  });
});

describe("a store used after its close()", () => {
  let sqlite: SqliteTestDatabase;
  beforeAll(async () => {
    sqlite = await createSqliteDatabase();
  });
  afterAll(async () => {
    await sqlite?.drop();
  });

  it("SQLite: every later statement fails with TASK_STORE_CLOSED", async () => {
    const store = openStore(sqlite.url);
    await store.close();
    const failure = store.findTask(randomUUID());
    await expect(failure).rejects.toBeInstanceOf(TaskStoreClosedError);
    await expect(failure).rejects.toMatchObject({
      code: "TASK_STORE_CLOSED",
      message: `the SQLite store on ${sqlite.path} is closed: its close() was called. Open a new store with openStore() for further work, or close it only after its last use.`,
    });
  });

  it("MySQL: every later statement fails with TASK_STORE_CLOSED, the URL's password hidden", async () => {
    const store = openStore("mysql://root:secret@127.0.0.1:3306/none");
    await store.close();
    const failure = store.findTask(randomUUID());
    await expect(failure).rejects.toBeInstanceOf(TaskStoreClosedError);
    await expect(failure).rejects.toMatchObject({ code: "TASK_STORE_CLOSED" });
    await expect(failure).rejects.toThrow(
      /^the MySQL store on mysql:\/\/root:\*+@127\.0\.0\.1:3306\/none is closed: its close\(\) was called\. Open a new store with openStore\(\)/,
    );
  });
});
