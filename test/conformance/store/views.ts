// What `task-runner status` and the dashboard read: the clock, counts, ages, one task, the browse index, groups, the
// paged task list with its filters, recent workers, what is stuck, and finished tasks per minute.

import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { idAtTime } from "../../../src/dashboard/list-query.js";
import type { TaskFilter } from "../../../src/store/views.js";
import { area } from "./area.js";
import type { StoreBed, TaskSpec } from "./bed.js";

const HOUR = 3_600_000;

/** A uuidv7-shaped id of millisecond `ms` with random low bits. */
function idAt(ms: number): string {
  const hex = Math.floor(ms).toString(16).padStart(12, "0") + "7" + randomBytes(10).toString("hex").slice(0, 19);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const KINDS = ["due", "delayed", "running", "expired", "succeeded", "dead", "cancelled"] as const;

interface Listed {
  id: string;
  name: string;
  queue: string;
  status: string;
  kind: (typeof KINDS)[number];
  key: string | null;
}

/**
 * 63 tasks made through the store, enqueued (by their ids) one a minute over the last hour: three names over two
 * queues, every status, due and delayed pending tasks, live and expired leases, some keys. Answers what each became.
 */
async function listFixture(bed: StoreBed): Promise<Listed[]> {
  const now = (await bed.store.now()).getTime();
  const listed: Listed[] = [];
  const specs: TaskSpec[] = [];
  for (let i = 0; i < 63; i++) {
    const kind = KINDS[i % KINDS.length]!;
    const [name, queue] = i % 20 === 0 ? ["rare", "other"] : i % 3 === 0 ? ["image", "other"] : ["mail", "default"];
    const id = idAt(now - (63 - i) * 60_000);
    const key = i % 10 === 0 ? `k-${i}` : null;
    specs.push({ id, name, queue, key, delayMs: kind === "delayed" ? HOUR : 0, payload: { i } });
    listed.push({ id, name, queue, key, kind, status: kind === "due" || kind === "delayed" ? "pending" : kind === "expired" ? "running" : kind });
  }
  await bed.insert(specs);
  const of = (kind: Listed["kind"]) => listed.filter((task) => task.kind === kind).map((task) => task.id);
  const take = async (ids: string[], owner: string, leaseMs: number) =>
    bed.store.claimByIds(ids, { owner, leaseMs, names: ["mail", "image", "rare"], queues: ["default", "other"] });
  await take(of("running"), "w-live", 60_000);
  await take([...of("succeeded"), ...of("dead")], "w-done", 60_000);
  await bed.store.complete(
    "w-done",
    of("succeeded").map((id) => ({ id, resultJson: "null" })),
  );
  await bed.store.fail(
    "w-done",
    of("dead").map((id) => ({ id, error: "Error: no", delayMs: 0, finalReason: "unrecoverable" })),
  );
  for (const id of of("cancelled")) await bed.store.cancelTask(id);
  const expired = await take(of("expired"), "w-lost", 1);
  await bed.untilPast(new Date(Math.max(...expired.map((result) => result.claimed!.leaseExpiresAt!.getTime()))));
  return listed;
}

const FILTERS: Array<[string, TaskFilter, (task: Listed) => boolean]> = [
  ["none", {}, () => true],
  ["status", { status: "dead" }, (task) => task.status === "dead"],
  ["due", { status: "due" }, (task) => task.kind === "due"],
  ["expired", { status: "expired" }, (task) => task.kind === "expired"],
  ["name", { name: "image" }, (task) => task.name === "image"],
  ["rare name", { name: "rare" }, (task) => task.name === "rare"],
  ["queue", { queue: "default" }, (task) => task.queue === "default"],
  ["queue and status", { queue: "other", status: "succeeded" }, (task) => task.queue === "other" && task.status === "succeeded"],
  ["name and status", { name: "mail", status: "pending" }, (task) => task.name === "mail" && task.status === "pending"],
  ["key", { key: "k-30" }, (task) => task.key === "k-30"],
  ["unknown name", { name: "nope" }, () => false],
];

/** Every id listTasks shows for `filter`, page by page (`limit` a page), newest first. */
async function walk(bed: StoreBed, filter: TaskFilter, browse: boolean, limit: number): Promise<string[]> {
  const groups = browse ? await bed.store.listTaskGroups({ queue: filter.queue, name: filter.name }) : undefined;
  const ids: string[] = [];
  let before: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await bed.store.listTasks(filter, { limit, before }, groups);
    expect(page.rows.length).toBeLessThanOrEqual(limit);
    expect(page.hasNewer).toBe(pages > 0);
    ids.push(...page.rows.map((row) => row.id));
    if (!page.hasOlder) break;
    before = page.rows.at(-1)!.id;
  }
  return ids;
}

const newestFirst = (tasks: Listed[]) =>
  tasks
    .map((task) => task.id)
    .sort()
    .reverse();

async function pagesEveryFilter(bed: StoreBed, browse: boolean): Promise<void> {
  await bed.setBrowseIndex(browse);
  const tasks = await listFixture(bed);
  for (const [label, filter, matches] of FILTERS) {
    expect(await walk(bed, filter, browse, 4), label).toEqual(newestFirst(tasks.filter(matches)));
  }
  const from = (await bed.store.now()).getTime() - 40 * 60_000;
  const to = from + 20 * 60_000;
  const window = tasks.filter((task) => task.status === "succeeded" && task.id >= idAtTime(from) && task.id < idAtTime(to));
  expect(window.length).toBeGreaterThan(1);
  expect(await walk(bed, { status: "succeeded", fromId: idAtTime(from), toId: idAtTime(to) }, browse, 2)).toEqual(newestFirst(window));
  const groups = browse ? await bed.store.listTaskGroups() : undefined;
  const all = newestFirst(tasks);
  const back = await bed.store.listTasks({}, { limit: 5, after: all[12] }, groups);
  expect(back.rows.map((row) => row.id)).toEqual(all.slice(7, 12));
  expect(back).toMatchObject({ hasNewer: true, hasOlder: true });
  const first = await bed.store.listTasks({}, { limit: 5, after: all[3] }, groups);
  expect(first.rows.map((row) => row.id)).toEqual(all.slice(0, 3));
  expect(first.hasNewer).toBe(false);
}

export const viewsArea = area("views", {
  now: {
    "the database clock: never goes back, and agrees with this machine's": async (bed) => {
      const first = await bed.store.now();
      const second = await bed.store.now();
      expect(first).toBeInstanceOf(Date);
      expect(second.getTime()).toBeGreaterThanOrEqual(first.getTime());
      expect(Math.abs(second.getTime() - Date.now())).toBeLessThan(5_000);
    },
  },

  countTasksUpTo: {
    "counts every task below the limit, and says the limit at or above it": async (bed) => {
      expect(await bed.store.countTasksUpTo(3)).toBe(0);
      await bed.insert([{}, { name: "image", queue: "other" }]);
      expect(await bed.store.countTasksUpTo(3)).toBe(2);
      await bed.insert([{}, {}]);
      expect(await bed.store.countTasksUpTo(3)).toBe(3);
      expect(await bed.store.countTasksUpTo(10)).toBe(4);
    },
  },

  countTasks: {
    "counts tasks by queue, name and status; an empty table counts nothing": async (bed) => {
      expect(await bed.store.countTasks()).toEqual([]);
      const [a, , , d] = await bed.insert([{}, {}, { name: "image", queue: "other" }, {}]);
      await bed.succeed([a!]);
      await bed.claim([d!]);
      const counts = await bed.store.countTasks();
      const key = (c: { queue: string; name: string; status: string }) => `${c.queue}/${c.name}/${c.status}`;
      expect(new Map(counts.map((c) => [key(c), c.count]))).toEqual(
        new Map([
          ["default/mail/pending", 1],
          ["default/mail/running", 1],
          ["default/mail/succeeded", 1],
          ["other/image/pending", 1],
        ]),
      );
    },
  },

  pendingAges: {
    "per queue: how many pending tasks are due and how long the oldest has waited; not-due and running ones do not count": async (bed) => {
      expect(await bed.store.pendingAges()).toEqual([]);
      const now = await bed.store.now();
      const [, , running] = await bed.insert([
        { runAt: new Date(now.getTime() - 120_000) },
        {},
        {},
        { delayMs: HOUR },
        { queue: "other", runAt: new Date(now.getTime() - 10_000) },
      ]);
      await bed.claim([running!]);
      const ages = await bed.store.pendingAges();
      expect(ages.map((age) => [age.queue, age.due])).toEqual([
        ["default", 2],
        ["other", 1],
      ]);
      expect(ages[0]!.oldestDueSeconds).toBeGreaterThanOrEqual(119.9);
      expect(ages[0]!.oldestDueSeconds).toBeLessThan(200);
      expect(ages[1]!.oldestDueSeconds).toBeGreaterThanOrEqual(9.9);
    },
  },

  findTask: {
    "one task with every column and the database clock; undefined for a missing id": async (bed) => {
      const [id] = await bed.insert([{ key: "detail", payload: { deep: { list: [1] } } }]);
      const [claimed] = await bed.claim([id!]);
      const found = await bed.store.findTask(id!);
      const { now, ...task } = found!;
      expect(task).toEqual(claimed);
      expect(now).toBeInstanceOf(Date);
      expect(now.getTime()).toBeGreaterThanOrEqual(claimed!.updatedAt.getTime());
      expect(await bed.store.findTask("01930000-0000-7000-8000-000000000011")).toBeUndefined();
    },
  },

  hasBrowseIndex: {
    "false without the index, true once the statement browseIndexAdvice() names has run": async (bed) => {
      await bed.setBrowseIndex(false);
      expect(await bed.store.hasBrowseIndex()).toBe(false);
      await bed.setBrowseIndex(true);
      expect(await bed.store.hasBrowseIndex()).toBe(true);
      await bed.setBrowseIndex(false);
      expect(await bed.store.hasBrowseIndex()).toBe(false);
    },
  },

  browseIndexAdvice: {
    "names one statement, the same every time": async (bed) => {
      const advice = bed.store.browseIndexAdvice();
      expect(advice).toMatch(/\S/);
      expect(bed.store.browseIndexAdvice()).toBe(advice);
    },
  },

  listTaskGroups: {
    "the (queue, name) pairs present, ordered, each once; pinning a queue or a name keeps only its pairs": async (bed) => {
      await bed.setBrowseIndex(true);
      expect(await bed.store.listTaskGroups()).toEqual([]);
      await bed.insert([{ name: "mail" }, { name: "mail" }, { name: "image", queue: "other" }, { name: "mail", queue: "other" }, { name: "rare" }]);
      expect(await bed.store.listTaskGroups()).toEqual([
        { queue: "default", name: "mail" },
        { queue: "default", name: "rare" },
        { queue: "other", name: "image" },
        { queue: "other", name: "mail" },
      ]);
      expect(await bed.store.listTaskGroups({ name: "mail" })).toEqual([
        { queue: "default", name: "mail" },
        { queue: "other", name: "mail" },
      ]);
      expect(await bed.store.listTaskGroups({ queue: "other" })).toEqual([
        { queue: "other", name: "image" },
        { queue: "other", name: "mail" },
      ]);
      expect(await bed.store.listTaskGroups({ queue: "default", name: "image" })).toEqual([]);
    },
  },

  countGroups: {
    "without groups: every group counted exactly": async (bed) => {
      const ids = await bed.insert(Array.from({ length: 25 }, () => ({})));
      await bed.insert([{ name: "image", queue: "other" }]);
      await bed.succeed(ids.slice(0, 3));
      const counts = await bed.store.countGroups({ groups: undefined, exactLimit: 5 });
      const key = (c: { queue: string; name: string; status: string }) => `${c.queue}/${c.name}/${c.status}`;
      expect(new Map(counts.map((c) => [key(c), [c.count, c.estimated]]))).toEqual(
        new Map([
          ["default/mail/pending", [22, false]],
          ["default/mail/succeeded", [3, false]],
          ["other/image/pending", [1, false]],
        ]),
      );
    },

    "with groups: only those groups, exact up to the limit, and above it more than the limit (flagged when estimated)": async (bed) => {
      await bed.setBrowseIndex(true);
      const ids = await bed.insert(Array.from({ length: 25 }, () => ({})));
      await bed.insert([{ name: "image", queue: "other" }, { name: "rare" }]);
      await bed.succeed(ids.slice(0, 3));
      const groups = (await bed.store.listTaskGroups()).filter((group) => group.name !== "rare");
      const counts = await bed.store.countGroups({ groups, exactLimit: 5, sampleRows: 1_000_000 });
      expect(counts.map((c) => `${c.queue}/${c.name}/${c.status}`).sort()).toEqual(["default/mail/pending", "default/mail/succeeded", "other/image/pending"]);
      const big = counts.find((c) => c.status === "pending" && c.name === "mail")!;
      // An estimate (the dialect's sample, or its optimizer's guess) says at least more than the limit: how near the
      // truth it comes depends on the table's statistics, which a fresh table lacks.
      if (big.estimated) expect(big.count).toBeGreaterThan(5);
      else expect(big.count).toBe(22);
      expect(counts.find((c) => c.status === "succeeded")).toMatchObject({ count: 3, estimated: false });
      expect(counts.find((c) => c.name === "image")).toMatchObject({ count: 1, estimated: false });
    },
  },

  listTasks: {
    "pages through exactly the matching tasks, newest first, for every filter (without the browse index)": async (bed) => {
      await pagesEveryFilter(bed, false);
    },

    "pages through exactly the matching tasks, newest first, for every filter (with the browse index)": async (bed) => {
      await pagesEveryFilter(bed, true);
    },

    "a row shows the task, the first line of its last error (at most 400 characters) and the start of its payload (at most 160)": async (bed) => {
      const payload = { text: "x".repeat(300) };
      const [id, other] = await bed.insert([{ payload, key: "row-key", maxAttempts: 3 }, {}]);
      await bed.claim([id!], "worker-a");
      await bed.store.fail("worker-a", [{ id: id!, error: `Error: ${"e".repeat(500)}\n    at somewhere`, delayMs: HOUR, finalReason: null }]);
      await bed.claim([other!], "worker-b", 60_000);
      await bed.store.fail("worker-b", [{ id: other!, error: "Error: short\n    at line 2", delayMs: HOUR, finalReason: null }]);
      const page = await bed.store.listTasks({}, { limit: 10 }, undefined);
      const row = page.rows.find((r) => r.id === id)!;
      const task = await bed.task(id!);
      expect(row).toMatchObject({
        id,
        name: "mail",
        queue: "default",
        status: "pending",
        attempts: 1,
        maxAttempts: 3,
        key: "row-key",
        leaseOwner: null,
        leaseExpiresAt: null,
        finishedAt: null,
        runAt: task.runAt,
        createdAt: task.createdAt,
      });
      expect(row.errorLine).toBe(`Error: ${"e".repeat(500)}`.slice(0, 400));
      expect(page.rows.find((r) => r.id === other)!.errorLine).toBe("Error: short");
      expect(row.payloadPreview.length).toBeLessThanOrEqual(160);
      expect(row.payloadPreview.length).toBeGreaterThan(100);
      expect(JSON.stringify(payload).startsWith(row.payloadPreview.replace(/\s/g, ""))).toBe(true);
      expect(page).toMatchObject({ hasOlder: false, hasNewer: false });
    },
  },

  recentWorkers: {
    "lease owners of running tasks and the finishers of the window, most recently seen first, with expired leases counted": async (bed) => {
      const [a1, a2, b1, c1] = await bed.insert([{}, {}, {}, {}]);
      await bed.expired([a1!], "w-a");
      const [seenA] = await bed.claim([a2!], "w-a", 60_000);
      await bed.untilPast(seenA!.updatedAt);
      await bed.succeed([b1!], "w-b");
      await bed.untilPast((await bed.task(b1!)).finishedAt!);
      await bed.claim([c1!], "w-c", 60_000);
      const workers = await bed.store.recentWorkers(600);
      expect(workers.map(({ worker, running, expired, finished }) => ({ worker, running, expired, finished }))).toEqual([
        { worker: "w-c", running: 1, expired: 0, finished: 0 },
        { worker: "w-b", running: 0, expired: 0, finished: 1 },
        { worker: "w-a", running: 2, expired: 1, finished: 0 },
      ]);
      const now = await bed.store.now();
      for (const worker of workers) {
        expect(worker.lastSeen.getTime()).toBeLessThanOrEqual(now.getTime());
        expect(worker.idleSeconds).toBeGreaterThanOrEqual(0);
        expect(worker.idleSeconds).toBeLessThan(60);
      }
      expect((await bed.store.recentWorkers(600, 1)).map((worker) => worker.worker)).toEqual(["w-c"]);
    },

    "a finish older than the window is forgotten": async (bed) => {
      const [id] = await bed.insert();
      await bed.succeed([id!], "w-old");
      await bed.untilPast(new Date((await bed.task(id!)).finishedAt!.getTime() + 1100));
      expect(await bed.store.recentWorkers(1)).toEqual([]);
      expect((await bed.store.recentWorkers(600)).map((worker) => worker.worker)).toEqual(["w-old"]);
    },
  },

  stuckTasks: {
    "per queue and name: expired leases, due, scheduled, never-woken and retrying tasks, and how old the oldest are": async (bed) => {
      const now = await bed.store.now();
      const [, , expired, retrying] = await bed.insert([{ runAt: new Date(now.getTime() - 120_000) }, {}, {}, {}, { delayMs: HOUR }]);
      await bed.insert([{ name: "image", queue: "other", runAt: new Date(now.getTime() - 60_000) }], true);
      await bed.expired([expired!]);
      await bed.claim([retrying!]);
      await bed.store.fail("worker-a", [{ id: retrying!, error: "Error: later", delayMs: HOUR, finalReason: null }]);
      const stuck = await bed.store.stuckTasks(30);
      expect(stuck.map(({ queue, name, expired, due, scheduled, unpublished, retrying }) => ({ queue, name, expired, due, scheduled, unpublished, retrying }))).toEqual([
        { queue: "default", name: "mail", expired: 1, due: 2, scheduled: 2, unpublished: 1, retrying: 1 },
        { queue: "other", name: "image", expired: 0, due: 1, scheduled: 0, unpublished: 0, retrying: 0 },
      ]);
      expect(stuck[0]!.oldestDueSeconds).toBeGreaterThanOrEqual(119.9);
      expect(stuck[0]!.oldestExpiredSeconds).toBeGreaterThanOrEqual(0);
      expect(stuck[0]!.oldestExpiredSeconds).toBeLessThan(60);
      expect(stuck[1]!.oldestDueSeconds).toBeGreaterThanOrEqual(59.9);
      expect(stuck[1]!.oldestExpiredSeconds).toBe(0);
    },

    "nothing is stuck in a table of live leases and finished tasks": async (bed) => {
      const [live, done] = await bed.insert([{}, {}]);
      await bed.claim([live!], "w", 60_000);
      await bed.succeed([done!]);
      expect(await bed.store.stuckTasks(30)).toEqual([]);
    },
  },

  finishedPerMinute: {
    "the last hour minute by minute on the database clock, with every finish counted by outcome and by name": async (bed) => {
      const [s1, s2, d1, c1] = await bed.insert([{}, { name: "image", queue: "other" }, {}, {}]);
      await bed.succeed([s1!, s2!]);
      await bed.kill([d1!]);
      await bed.store.cancelTask(c1!);
      const { minutes, byName } = await bed.store.finishedPerMinute();
      const now = await bed.store.now();
      expect(minutes).toHaveLength(61);
      expect(minutes.every((m, i) => i === 0 || m.minute - minutes[i - 1]!.minute === 60)).toBe(true);
      expect(Math.floor(now.getTime() / 60_000) * 60 - minutes[60]!.minute).toBeLessThanOrEqual(60);
      const sum = (field: "succeeded" | "dead" | "cancelled") => minutes.reduce((total, m) => total + m[field], 0);
      expect([sum("succeeded"), sum("dead"), sum("cancelled")]).toEqual([2, 1, 1]);
      expect(byName.sort((a, b) => a.queue.localeCompare(b.queue))).toEqual([
        { queue: "default", name: "mail", succeeded: 1, dead: 1 },
        { queue: "other", name: "image", succeeded: 1, dead: 0 },
      ]);
    },

    "an empty table: 61 empty minutes and no names": async (bed) => {
      const { minutes, byName } = await bed.store.finishedPerMinute();
      expect(minutes).toHaveLength(61);
      expect(minutes.every((m) => m.succeeded + m.dead + m.cancelled === 0)).toBe(true);
      expect(byName).toEqual([]);
    },
  },
});
