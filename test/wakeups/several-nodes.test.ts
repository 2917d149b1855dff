// amqpUrl with several nodes, against the real broker behind proxies of the test's own (the three-node cluster has
// its own file, test/cluster): a node that is away or refuses the login is passed over, a lost node is left for the
// next at once, and a list with a bad entry is refused naming it.

import net from "node:net";
import { afterAll, afterEach, beforeAll, expect, inject, it } from "vitest";
import { amqpUrlProblem } from "../../src/amqp-url.js";
import { RabbitMqTransport } from "../../src/wakeups/rabbitmq/rabbitmq-transport.js";
import { topology } from "../../src/wakeups/rabbitmq/topology.js";
import { uniquePrefix } from "../support/broker.js";
import { TcpProxy } from "../support/tcp-proxy.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger } from "../worker/harness.js";

const broker = new URL(inject("amqpUrl"));
const prefix = uniquePrefix();
const opened: RabbitMqTransport[] = [];
let first: TcpProxy;
let second: TcpProxy;

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function transport(url: string, logger: ReturnType<typeof recordingLogger>): RabbitMqTransport {
  const made = new RabbitMqTransport({ url, topology: topology(prefix), logger, lastingRetryDelayMs: 100 });
  opened.push(made);
  return made;
}

beforeAll(async () => {
  first = await new TcpProxy(broker.hostname, Number(broker.port || 5672)).start();
  second = await new TcpProxy(broker.hostname, Number(broker.port || 5672)).start();
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((each) => each.close()));
  first.restore();
  second.restore();
});

afterAll(async () => {
  await Promise.all([first?.stop(), second?.stop()]);
});

it("connects to the next node when the first is away, and shows the node it is on", async () => {
  const logger = recordingLogger();
  const away = `amqp://guest:guest@127.0.0.1:${await closedPort()}`;
  const made = transport(`${away}, ${first.route(broker.toString())}`, logger);
  expect(await made.settled(10_000)).toBe(true);
  expect(made.broker).toMatchObject({ state: "connected", url: first.route(broker.toString()).replace("guest:guest", "guest:***") });
  expect(logger.find("broker unreachable, retrying")).toEqual([]);
});

it("passes over a node that refuses the login without giving up, and logs its fix once", async () => {
  const logger = recordingLogger();
  const refusing = first.route(broker.toString()).replace("guest:guest", "guest:wrong");
  const made = transport(`${refusing},${second.route(broker.toString())}`, logger);
  expect(await made.settled(10_000)).toBe(true);
  expect(made.broker).toMatchObject({ state: "connected" });
  expect(made.broker.url).toContain(`:${second.port}`);
  // The failed attempt on the refusing node came before the success; nothing was logged as an error for it: a round
  // that connects logs no fix (only a round in which no node accepted does).
  expect(logger.lines.filter((line) => line.level === "error")).toEqual([]);
});

it("when every node refuses, it says so with the fix, and retries slowly", async () => {
  const logger = recordingLogger();
  const urls = [first, second].map((proxy) => proxy.route(broker.toString()).replace("guest:guest", "guest:wrong"));
  const made = transport(urls.join(","), logger);
  expect(await made.settled(10_000)).toBe(false);
  await waitUntil(() => made.broker.state === "refused", "the state to say refused");
  expect(made.broker.fix).toContain("refused the user name or password");
  expect(made.broker.url).toBe(urls.map((url) => url.replace("guest:wrong", "guest:***")).join(","));
  // One fix per node, each logged once.
  await waitUntil(() => first.stats.accepted >= 3 && second.stats.accepted >= 3, "three rounds");
  expect(logger.lines.filter((line) => line.level === "error")).toHaveLength(2);
});

it("moves to the other node at once when its node goes, and consumes there", async () => {
  const logger = recordingLogger();
  const made = transport(`${first.route(broker.toString())},${second.route(broker.toString())}`, logger);
  const listener = made.listen({ queues: ["default"], prefetch: 1, deliver: async () => true });
  listener.start();
  await waitUntil(() => logger.find("consuming wake-ups").length === 1, "consuming");
  expect(made.broker.url).toContain(`:${first.port}`);
  first.refuse(); // new connections to the first node are reset
  first.cut(); // and the one open is lost
  await waitUntil(() => logger.find("consuming wake-ups").length === 2, "consuming through the second node");
  expect(made.broker.url).toContain(`:${second.port}`);
  expect(logger.find("broker connection lost")).toHaveLength(1);
  expect(logger.find("broker unreachable, retrying")).toEqual([]);
  await listener.close();
});

it("refuses a list with a bad entry, naming it", () => {
  expect(amqpUrlProblem("amqp://a:5672, amqp://b:5672")).toBeUndefined();
  expect(amqpUrlProblem("amqp://guest:secret@a:5672,b:5672")).toBe(
    "must be AMQP URLs (amqp:// or amqps://) separated by commas, such as amqp://guest:guest@127.0.0.1:5672,amqp://guest:guest@127.0.0.1:5673; " +
      '"b:5672" in "amqp://guest:***@a:5672,b:5672" is not one (a comma inside a password is written %2C)',
  );
  expect(amqpUrlProblem(" , ")).toBe('must be an AMQP URL (amqp:// or amqps://) such as amqp://guest:guest@127.0.0.1:5672, got " , "');
});
