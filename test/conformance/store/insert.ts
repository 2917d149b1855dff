// Enqueue's side of the store: the insert request (one result per input, in input order; keys deduplicated against
// the table and within the batch; times from the database clock; the published mark) and the lookup of tasks by key.

import { expect } from "vitest";
import type { InsertedTask } from "../../../src/store/enqueue-rows.js";
import { area } from "./area.js";
import { filterFor, prepared, sendInsert, type TaskSpec } from "./bed.js";

/** Within this many ms of each other (the database clock read twice around one statement). */
const CLOCK_SLACK_MS = 5;

export const insertArea = area("insert", {
  insertTasks: {
    "one due task: created, due, pending, stored with every field as given": async (bed) => {
      const row = prepared({ name: "image", queue: "other", payload: { w: 3 }, priority: 7, maxAttempts: 9 });
      const before = await bed.store.now();
      const [result] = await sendInsert(bed.store, [row]);
      const after = await bed.store.now();
      expect(result).toMatchObject({ i: 0, id: row.id, name: "image", queue: "other", status: "pending", key: null, created: true, due: true });
      expect(result!.runAtMs).toBeGreaterThanOrEqual(before.getTime() - CLOCK_SLACK_MS);
      expect(result!.runAtMs).toBeLessThanOrEqual(after.getTime() + CLOCK_SLACK_MS);
      const task = await bed.task(row.id);
      expect(task).toMatchObject({
        id: row.id,
        name: "image",
        queue: "other",
        payload: { w: 3 },
        status: "pending",
        priority: 7,
        attempts: 0,
        maxAttempts: 9,
        leaseOwner: null,
        leaseExpiresAt: null,
        lastError: null,
        errors: [],
        result: null,
        key: null,
        finishedAt: null,
        publishedAt: null,
        finishedBy: null,
      });
      expect(Math.abs(task.runAt.getTime() - result!.runAtMs!)).toBeLessThan(1);
      expect(task.createdAt.getTime()).toBeGreaterThanOrEqual(before.getTime() - CLOCK_SLACK_MS);
      expect(task.createdAt.getTime()).toBeLessThanOrEqual(after.getTime() + CLOCK_SLACK_MS);
    },

    "run_at from the database clock: delayMs after now, runAt as given, a runAt just past is due": async (bed) => {
      const now = await bed.store.now();
      const ahead = new Date(now.getTime() + 3_600_000 + 123);
      const past = new Date(now.getTime() - 30_000 + 456);
      const results = await bed.insertRows([{ delayMs: 60_000 }, { runAt: ahead }, { runAt: past }, { delayMs: 0 }]);
      const after = await bed.store.now();
      expect(results.map((result) => result.due)).toEqual([false, false, true, true]);
      expect(results[0]!.runAtMs).toBeGreaterThanOrEqual(now.getTime() + 60_000 - CLOCK_SLACK_MS);
      expect(results[0]!.runAtMs).toBeLessThanOrEqual(after.getTime() + 60_000 + CLOCK_SLACK_MS);
      expect(results[1]!.runAtMs).toBe(ahead.getTime());
      expect(results[2]!.runAtMs).toBe(past.getTime());
      expect((await bed.task(results[1]!.id!)).runAt).toEqual(ahead);
    },

    "a new task due later tells when, where the dialect knows: never later than its delay from the call, never much earlier": async (bed) => {
      const called = performance.now();
      const [later, due] = await bed.insertRows([{ delayMs: 60_000 }, {}]);
      const answered = performance.now();
      // dueAt is on this process's clock; dueInMs counts from the statement's start, which is between the call and the answer.
      // Either errs early by at most the statement's way to the server (on PostgreSQL the gap between the transaction's
      // first message and the statement's last, which a pooler under load stretches): never by more than the call took.
      const dueAt = later!.dueAt ?? (typeof later!.dueInMs === "number" ? called + later!.dueInMs : undefined);
      if (dueAt !== undefined) {
        expect(dueAt).toBeLessThanOrEqual(answered + 60_000);
        expect(dueAt).toBeGreaterThanOrEqual(called + 60_000 - (answered - called) - CLOCK_SLACK_MS);
      }
      expect(due!.dueAt).toBeUndefined();
    },

    "publishes: due tasks are marked published by the insert, delayed ones never; without it nothing is marked": async (bed) => {
      const [due, later] = await bed.insertRows([{}, { delayMs: 60_000 }], true);
      const [plain] = await bed.insertRows([{}], false);
      const now = await bed.store.now();
      const published = (await bed.task(due!.id!)).publishedAt;
      expect(published).toBeInstanceOf(Date);
      expect(published!.getTime()).toBeLessThanOrEqual(now.getTime());
      expect((await bed.task(later!.id!)).publishedAt).toBeNull();
      expect((await bed.task(plain!.id!)).publishedAt).toBeNull();
    },

    "a batch answers one result per input, in input order": async (bed) => {
      const specs: TaskSpec[] = [{ name: "image" }, { delayMs: 60_000 }, { key: "b-1" }, { queue: "other" }, { key: "b-2", delayMs: 60_000 }];
      const rows = specs.map(prepared);
      const results = await sendInsert(bed.store, rows);
      expect(results.map((result) => [result.i, result.id, result.name, result.queue, result.key, result.created])).toEqual(
        rows.map((row, i) => [i, row.id, row.name, row.queue, row.key, true]),
      );
      expect(results.map((result) => result.due)).toEqual([true, false, true, true, false]);
      expect((await bed.store.countTasks()).reduce((sum, count) => sum + count.count, 0)).toBe(5);
    },

    "an empty batch inserts nothing and answers nothing": async (bed) => {
      expect(await sendInsert(bed.store, [])).toEqual([]);
      expect(await sendInsert(bed.store, [], true)).toEqual([]);
      expect(await bed.store.countTasks()).toEqual([]);
    },

    "a key already in the table: the existing task is answered (created false, not due), and no second row is written": async (bed) => {
      const [first] = await bed.insertRows([{ key: "once", name: "image", queue: "other", delayMs: 60_000 }]);
      const row = prepared({ key: "once", payload: { second: true } });
      const [again] = await sendInsert(bed.store, [row], true);
      // The time left until due is told of a new task only (where the dialect tells it at all).
      const { dueInMs, dueAt: _dueAt, ...existing } = first!;
      expect(again).toEqual({ ...existing, created: false, due: false, ...(dueInMs === undefined ? {} : { dueInMs: null }) });
      expect(await bed.store.findTask(row.id)).toBeUndefined();
      expect((await bed.task(first!.id!)).payload).toEqual({ n: 1 });
      await bed.store.runTaskNow(first!.id!);
      await bed.store.claimByIds([first!.id!], filterFor("finisher", 30_000, ["image"], ["other"]));
      expect(await bed.store.complete("finisher", [{ id: first!.id!, resultJson: "null" }])).toEqual([first!.id]);
      const [afterSuccess] = await bed.insertRows([{ key: "once" }]);
      expect(afterSuccess).toMatchObject({ id: first!.id, created: false, status: "succeeded" });
    },

    "the same key twice in one batch: one task, the twin answers it": async (bed) => {
      const rows = [prepared({ key: "twin", payload: { a: 1 } }), prepared({}), prepared({ key: "twin", payload: { a: 2 } })];
      const results = await sendInsert(bed.store, rows);
      expect(results.map((result) => result.created)).toEqual([true, true, false]);
      expect(results[2]).toMatchObject({ i: 2, id: rows[0]!.id, key: "twin", created: false });
      expect(await bed.store.findTask(rows[2]!.id)).toBeUndefined();
      expect((await bed.task(rows[0]!.id)).payload).toEqual({ a: 1 });
    },

    "a batch with keys stores and answers what the same batch without keys does": async (bed) => {
      const now = await bed.store.now();
      const specs: TaskSpec[] = [
        { name: "mail", payload: { r: "a" } },
        { name: "image", queue: "other", payload: { u: "x", w: 3 }, priority: -2, maxAttempts: 1 },
        { payload: null, delayMs: 1500 },
        { payload: { quote: '" \\ é \u2028' }, runAt: new Date(now.getTime() + 120_000) },
        { payload: [1, 2], runAt: new Date(now.getTime() - 5_000) },
      ];
      const keyless = specs.map((spec) => prepared(spec));
      const keyed = specs.map((spec, i) => prepared({ ...spec, key: `same-${i}` }));
      const shape = async (rows: typeof keyless, results: InsertedTask[], given = specs) => {
        const tasks = await Promise.all(rows.map((row) => bed.task(row.id)));
        return results.map((result, i) => ({
          i: result.i,
          own: result.id === rows[i]!.id,
          name: result.name,
          queue: result.queue,
          status: result.status,
          created: result.created,
          due: result.due,
          runAt: given[i]!.runAt ? result.runAtMs : `${Math.round((result.runAtMs! - tasks[i]!.createdAt.getTime()) / 1000)} s after creation`,
          stored: { ...tasks[i]!, id: 0, key: null, runAt: 0, createdAt: 0, updatedAt: 0, publishedAt: tasks[i]!.publishedAt !== null },
        }));
      };
      const a = await shape(keyless, await sendInsert(bed.store, keyless, true));
      const b = await shape(keyed, await sendInsert(bed.store, keyed, true));
      expect(b).toEqual(a);
      expect(a.map((row) => row.stored.payload)).toEqual([{ r: "a" }, { u: "x", w: 3 }, null, { quote: '" \\ é \u2028' }, [1, 2]]);
      // One task alone, with and without a key, as in the batch.
      for (const [i, spec] of specs.entries()) {
        const [alone, aloneKeyed] = [prepared(spec), prepared({ ...spec, key: `alone-${i}` })];
        const single = await shape([alone], await sendInsert(bed.store, [alone], true), [spec]);
        const singleKeyed = await shape([aloneKeyed], await sendInsert(bed.store, [aloneKeyed], true), [spec]);
        expect(singleKeyed).toEqual(single);
        expect({ ...single[0]!, i }).toEqual(a[i]);
      }
    },

    "the trace context is stored as given by every insert (one task, a batch sharing one, a batch of different ones, with keys), read back by findTask and the claim, null without one":
      async (bed) => {
        const context = (n: number) => JSON.stringify({ traceparent: `00-${String(n).padStart(32, "a")}-${String(n).padStart(16, "b")}-01`, tracestate: "ptq=t" + n });
        const one = prepared({ traceContext: context(1) });
        const shared = [prepared({ traceContext: context(2) }), prepared({ traceContext: context(2), delayMs: 60_000 })];
        const mixed = [prepared({ traceContext: context(3) }), prepared({}), prepared({ traceContext: context(4), queue: "other" })];
        const keyed = [prepared({ traceContext: context(5), key: "traced-1" }), prepared({ key: "traced-2" })];
        const plain = [prepared({}), prepared({})];
        for (const rows of [[one], shared, mixed, keyed, plain]) await sendInsert(bed.store, rows);
        const all = [one, ...shared, ...mixed, ...keyed, ...plain];
        const stored = await Promise.all(all.map(async (row) => (await bed.task(row.id)).traceContext));
        expect(stored).toEqual(all.map((row) => row.traceContext ?? null));
        const claimed = await bed.store.claimByIds([one.id, mixed[1]!.id], filterFor("trace-worker"));
        expect(Object.fromEntries(claimed.map((result) => [result.id, result.claimed?.traceContext]))).toEqual({ [one.id]: context(1), [mixed[1]!.id]: null });
      },

    "payloads come back as written: JSON null, nested values, quotes, backslashes, unicode": async (bed) => {
      const payloads = [null, { inner: null }, "text", 42, [true, { deep: ["é", "\u{1F600}", "\\", '"'] }], { big: "x".repeat(10_000) }];
      const ids = await bed.insert(payloads.map((payload) => ({ payload })));
      for (const [i, id] of ids.entries()) expect((await bed.task(id)).payload).toEqual(payloads[i]);
      const claimed = await bed.claim(ids);
      expect(new Map(claimed.map((task) => [task.id, task.payload]))).toEqual(new Map(ids.map((id, i) => [id, payloads[i]])));
    },

    "a large batch (6,001 tasks, past any statement's chunk) goes in one request, answered in order": async (bed) => {
      const rows = Array.from({ length: 6001 }, (_, n) => prepared({ payload: { n }, key: n % 3 === 0 ? `many-${n}` : null, delayMs: n % 7 === 0 ? 60_000 : 0 }));
      const results = await sendInsert(bed.store, rows);
      expect(results.map((result) => result.id)).toEqual(rows.map((row) => row.id));
      expect(results.every((result, i) => result.i === i && result.created && result.due === (i % 7 !== 0))).toBe(true);
      expect(await bed.store.countTasks()).toEqual([{ queue: "default", name: "mail", status: "pending", count: 6001 }]);
      expect((await bed.task(rows[0]!.id)).payload).toEqual({ n: 0 });
      expect((await bed.task(rows[6000]!.id)).payload).toEqual({ n: 6000 });
    },
  },

  tasksByKeys: {
    "names the tasks of the keys asked, as an insert that met them would": async (bed) => {
      const [a, b] = await bed.insertRows([{ key: "k-a", name: "image", queue: "other" }, { key: "k-b", delayMs: 60_000 }, { key: "k-c" }]);
      const found = await bed.store.tasksByKeys(["k-a", "k-b"]);
      const byKey = new Map(found.map((row) => [row.key, row]));
      expect(found).toHaveLength(2);
      expect(byKey.get("k-a")).toMatchObject({
        id: a!.id,
        name: "image",
        queue: "other",
        status: "pending",
        key: "k-a",
        runAtMs: a!.runAtMs,
        created: false,
        due: false,
      });
      expect(byKey.get("k-b")).toMatchObject({ id: b!.id, name: "mail", queue: "default", status: "pending", key: "k-b", runAtMs: b!.runAtMs, created: false });
    },

    "keys that match nothing, and an empty list, find nothing": async (bed) => {
      await bed.insertRows([{ key: "present" }, {}]);
      expect(await bed.store.tasksByKeys(["absent", "Present"])).toEqual([]);
      expect(await bed.store.tasksByKeys([])).toEqual([]);
    },

    "a key committed after the inserting transaction took its snapshot: not created, and tasksByKeys names that task": async (bed) => {
      const prisma = bed.prisma();
      let snapshot!: () => void;
      const taken = new Promise<void>((resolve) => (snapshot = resolve));
      let committed!: () => void;
      const other = new Promise<void>((resolve) => (committed = resolve));
      const late = prisma.$transaction(async (tx: unknown) => {
        await (tx as typeof prisma).$queryRawUnsafe("SELECT count(*) AS n FROM tasks");
        snapshot();
        await other;
        return sendInsert(bed.store.through(tx), [prepared({ key: "late", payload: { loser: true } })]);
      }) as Promise<InsertedTask[]>;
      await taken;
      const [winner] = await bed.insertRows([{ key: "late" }]);
      committed();
      let answer: InsertedTask | undefined;
      try {
        [answer] = await late;
      } catch (error) {
        // A dialect whose snapshot cannot take a write after another commit fails the transaction with an error that
        // waiting fixes (the app's transaction is retried); its retry meets the committed task like any other insert.
        expect(bed.store.classify(error), String(error)).toMatchObject({ lasting: false });
        [answer] = await sendInsert(bed.store, [prepared({ key: "late" })]);
      }
      expect(answer).toMatchObject({ key: "late", created: false, due: false });
      if (answer!.id !== null) expect(answer!.id).toBe(winner!.id);
      expect(await bed.store.tasksByKeys(["late"])).toEqual([expect.objectContaining({ id: winner!.id, key: "late", created: false })]);
      expect(await bed.store.countTasks()).toEqual([{ queue: "default", name: "mail", status: "pending", count: 1 }]);
    },
  },
});
