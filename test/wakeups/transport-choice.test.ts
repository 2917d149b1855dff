// Which wake-up transport the options pick, and the errors of a choice that cannot work: the default per database and
// amqpUrl, "notify" where the database has no LISTEN/NOTIFY, a prefix too long for a NOTIFY channel, an unknown value.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { createWorker } from "../../src/worker/create-worker.js";
import { openStore } from "../../src/open-store.js";
import { silentLogger } from "../../src/logger.js";
import { checkTransportOptions, openTransport } from "../../src/wakeups/open-transport.js";
import { z } from "zod";
import { defineTasks } from "../../src/define-tasks.js";
import { TaskQueueConfigError } from "../../src/errors.js";
import { DeadTaskNotAnnouncedError } from "../../src/wakeups/wakeup-errors.js";

const sqliteFile = join(mkdtempSync(join(tmpdir(), "ptq-choice-")), "tasks.db");
writeFileSync(sqliteFile, "");
// Stores of each dialect: nothing connects before an operation, and none runs here.
const stores = {
  postgresql: openStore("postgresql://postgres@127.0.0.1:5432/postgres"),
  sqlite: openStore(`file:${sqliteFile}`),
  mysql: openStore("mysql://root@127.0.0.1:3306/ptq_unused"),
};
const amqpUrl = "amqp://guest:guest@127.0.0.1:5672";

function transportName(store: keyof typeof stores, options: { amqpUrl?: string; wakeups?: "rabbitmq" | "notify" | "polling"; inProcess?: string }) {
  return openTransport({ ...options, logger: silentLogger, store: stores[store] }).name;
}

it("defaults: RabbitMQ with amqpUrl; without it NOTIFY on PostgreSQL, in-process on SQLite, polling on MySQL", () => {
  expect(transportName("postgresql", { amqpUrl })).toBe("rabbitmq");
  expect(transportName("mysql", { amqpUrl })).toBe("rabbitmq");
  expect(transportName("postgresql", {})).toBe("notify");
  expect(transportName("postgresql", { amqpUrl: "" })).toBe("notify");
  expect(transportName("sqlite", { inProcess: "file" })).toBe("in-process");
  expect(transportName("mysql", {})).toBe("polling");
});

it("without RabbitMQ, announcing a dead task rejects with a coded error that says to set amqpUrl", async () => {
  const notification = { id: "00000000-0000-4000-8000-000000000001", name: "t", queue: "default", attempts: 5, lastError: null, reason: "max-attempts", at: "" };
  for (const [store, options] of [
    ["postgresql", {}],
    ["sqlite", { inProcess: "file" }],
    ["mysql", {}],
  ] as const) {
    const publisher = openTransport({ ...options, logger: silentLogger, store: stores[store] }).publisher();
    const error: unknown = await publisher.notifyDead(notification).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DeadTaskNotAnnouncedError);
    expect(error).toMatchObject({ code: "TASK_DEAD_NOT_ANNOUNCED" });
    expect((error as Error).message).toContain("Set amqpUrl");
    await publisher.close();
  }
});

it("an explicit choice wins over the default", () => {
  expect(transportName("postgresql", { amqpUrl, wakeups: "notify" })).toBe("notify");
  expect(transportName("postgresql", { wakeups: "polling" })).toBe("polling");
  expect(transportName("sqlite", { wakeups: "polling", inProcess: "file" })).toBe("polling");
  expect(transportName("mysql", { amqpUrl, wakeups: "rabbitmq" })).toBe("rabbitmq");
});

it('refuses "notify" on SQLite and MySQL, naming the value and the fix', () => {
  for (const [store, name] of [
    ["sqlite", "SQLite"],
    ["mysql", "MySQL"],
  ] as const) {
    const attempt = () => transportName(store, { wakeups: "notify" });
    expect(attempt).toThrow(TaskQueueConfigError);
    expect(attempt).toThrow(
      `Invalid option "wakeups": "notify" needs PostgreSQL's LISTEN/NOTIFY, which ${name} does not have. Use wakeups: "polling" (or leave it out), or set amqpUrl for RabbitMQ wake-ups.`,
    );
  }
});

it('refuses "rabbitmq" without amqpUrl, an unknown value, and a prefix too long for a NOTIFY channel', () => {
  expect(() => checkTransportOptions({ wakeups: "rabbitmq" })).toThrow(
    'Invalid option "wakeups": "rabbitmq" needs amqpUrl (e.g. amqp://guest:guest@127.0.0.1:5672); set it, or leave wakeups out.',
  );
  expect(() => checkTransportOptions({ wakeups: "kafka" as never })).toThrow(
    'Invalid option "wakeups": "kafka" is not a wake-up transport; use "rabbitmq", "notify" or "polling" (or leave it out).',
  );
  const prefix = "p".repeat(56);
  expect(() => checkTransportOptions({ wakeups: "notify", amqpPrefix: prefix })).toThrow(
    `Invalid option "amqpPrefix": "${prefix}" is too long for PostgreSQL NOTIFY wake-ups: the channel "${prefix}.wakeups" has 64 bytes, over 63. Use a prefix of at most 55 characters.`,
  );
  expect(() => checkTransportOptions({ wakeups: "notify", amqpPrefix: "p".repeat(55) })).not.toThrow();
  // The default pick checks it too, before anything connects.
  expect(() => transportName("postgresql", { amqpPrefix: prefix } as never)).toThrow("is too long for PostgreSQL NOTIFY wake-ups");
});

it("createWorker rejects a bad wakeups value and a listenUrl of another database at construction", () => {
  const tasks = defineTasks({ noop: { payload: z.object({}), handler: async () => {} } });
  const databaseUrl = "postgresql://postgres@127.0.0.1:5432/postgres";
  expect(() => createWorker({ tasks, databaseUrl, wakeups: "nats" as never })).toThrow('Invalid option "wakeups": "nats" is not a wake-up transport');
  expect(() => createWorker({ tasks, databaseUrl, listenUrl: "mysql://root@127.0.0.1:3306/app" })).toThrow(
    'Invalid option "listenUrl": the NOTIFY listener needs a PostgreSQL URL (postgresql://…), the same database as the tasks\'.',
  );
  expect(() => createWorker({ tasks, databaseUrl, listenUrl: "http://nope" })).toThrow(
    'Invalid option "listenUrl": "http://nope/" is not a URL of a supported database. Supported: PostgreSQL',
  );
});

afterAll(async () => {
  for (const store of Object.values(stores)) await store.close();
  rmSync(dirname(sqliteFile), { recursive: true, force: true });
});
