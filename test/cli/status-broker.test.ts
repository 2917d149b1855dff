// `task-runner status` shows the broker, against the real RabbitMQ: connected with the consumers and waiting wake-ups
// per queue, refused with what to fix (wrong password, missing vhost), unreachable, or none configured; --json too.

import net from "node:net";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/database.js";
import { uniquePrefix, WakeupCounter } from "../support/broker.js";
import { fixtureDir, runCli } from "./cli-process.js";

let db: TestDatabase;
let prefix: string;
let counter: WakeupCounter;
const app = fixtureDir("cli-app");
let env: Record<string, string>;

beforeAll(async () => {
  db = await createTestDatabase();
  prefix = uniquePrefix();
  counter = await WakeupCounter.start(prefix, ["default"]); // one listener on "default"; "mail" is never declared
  env = { DATABASE_URL: db.url, PTQ_PREFIX: prefix };
});

afterAll(async () => {
  await counter?.close();
  await db?.drop();
});

function withPassword(password: string, path = ""): string {
  const url = new URL(inject("amqpUrl"));
  url.password = password;
  url.pathname = path;
  return url.toString();
}

it("connected: the consumers and waiting wake-ups of every queue of the config", async () => {
  const result = await runCli(["status"], { cwd: app, env: { ...env, AMQP_URL: inject("amqpUrl") } });
  expect(result).toMatchObject({ code: 0, stderr: "" });
  expect(result.stdout).toContain("Broker: connected (amqp://guest:***@127.0.0.1:5672).\n");
  expect(result.stdout).toContain("  default: 1 consumer, 0 wake-ups waiting\n");
  expect(result.stdout).toContain("  mail: no queue on the broker yet (no worker has started for it and nothing was published to it)\n");
  const json = JSON.parse((await runCli(["status", "--json"], { cwd: app, env: { ...env, AMQP_URL: inject("amqpUrl") } })).stdout) as Record<string, unknown>;
  expect(json.broker).toEqual({
    transport: "rabbitmq",
    state: "connected",
    url: "amqp://guest:***@127.0.0.1:5672",
    error: null,
    fix: null,
    queues: [
      { queue: "default", declared: true, consumers: 1, ready: 0 },
      { queue: "mail", declared: false },
    ],
  });
});

it("refused: a wrong password and a missing virtual host, with the fix", async () => {
  const password = await runCli(["status", "--amqp-url", withPassword("wrong")], { cwd: app, env });
  expect(password.code).toBe(0);
  expect(password.stdout).toContain(
    "Broker: refused. RabbitMQ at amqp://guest:***@127.0.0.1:5672 refused the user name or password (ACCESS_REFUSED): check the " +
      "credentials in amqpUrl (the AMQP_URL environment variable, or --amqp-url for task-runner), or create that user on the broker (rabbitmqctl add_user).\n",
  );
  expect(password.stdout).not.toContain("wrong");
  const vhost = await runCli(["status", "--json"], { cwd: app, env: { ...env, AMQP_URL: withPassword("guest", "/nope") } });
  const broker = (JSON.parse(vhost.stdout) as { broker: { fix: string } }).broker;
  expect(broker).toMatchObject({ state: "refused", url: "amqp://guest:***@127.0.0.1:5672/nope", queues: [] });
  expect(broker.fix).toContain('refused to open the virtual host "nope" (NOT_ALLOWED)');
});

it("unreachable: nothing listening on the port", async () => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  const result = await runCli(["status"], { cwd: app, env: { ...env, AMQP_URL: `amqp://guest:guest@127.0.0.1:${port}` } });
  expect(result.code).toBe(0);
  expect(result.stdout).toContain(`Broker: unreachable at amqp://guest:***@127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}.\n`);
});

it("none configured: NOTIFY on PostgreSQL by default, or polling when asked", async () => {
  const result = await runCli(["status"], { cwd: app, env });
  expect(result.stdout).toContain(
    "Broker: none configured (no --amqp-url, AMQP_URL or amqpUrl): wake-ups go through PostgreSQL NOTIFY (how many workers listen cannot be counted).\n",
  );
  const none = { state: "none", url: null, error: null, fix: null, queues: [] };
  expect((JSON.parse((await runCli(["status", "--json"], { cwd: app, env })).stdout) as Record<string, unknown>).broker).toEqual({ transport: "notify", ...none });
  const polling = await runCli(["status", "--wakeups", "polling"], { cwd: app, env });
  expect(polling.stdout).toContain("Broker: none configured (no --amqp-url, AMQP_URL or amqpUrl): workers poll the database for due tasks.\n");
  expect((JSON.parse((await runCli(["status", "--json", "--wakeups", "polling"], { cwd: app, env })).stdout) as Record<string, unknown>).broker).toEqual({
    transport: "polling",
    ...none,
  });
});
