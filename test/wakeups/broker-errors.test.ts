// A wrong broker URL is loud once, not silent: against the real RabbitMQ, a refused password and a missing virtual host
// are logged once as an error naming the fix (and retried slowly), a closed port keeps the "unreachable, retrying" warning.

import net from "node:net";
import { afterAll, afterEach, beforeAll, expect, inject, it } from "vitest";
import { WakeupBrokerError } from "../../src/index.js";
import { openTransport } from "../../src/wakeups/open-transport.js";
import { RabbitMqTransport } from "../../src/wakeups/rabbitmq/rabbitmq-transport.js";
import { topology } from "../../src/wakeups/rabbitmq/topology.js";
import type { WakeupTransport } from "../../src/wakeups/transport.js";
import { uniquePrefix } from "../support/broker.js";
import { waitUntil } from "../support/wait.js";
import { recordingLogger } from "../worker/harness.js";

const broker = new URL(inject("amqpUrl"));
const prefix = uniquePrefix();
let counter: CountingForwarder;
const opened: WakeupTransport[] = [];

/** Forwards TCP connections to the real broker and counts them: each is one connection attempt of the transport. */
class CountingForwarder {
  accepted = 0;
  private readonly sockets = new Set<net.Socket>();
  private constructor(readonly server: net.Server) {}
  static async start(): Promise<CountingForwarder> {
    const forwarder: CountingForwarder = new CountingForwarder(
      net.createServer((client) => {
        forwarder.accepted += 1;
        const upstream = net.connect(Number(broker.port || 5672), broker.hostname);
        for (const socket of [client, upstream]) {
          forwarder.sockets.add(socket);
          socket.on("error", () => {});
          socket.on("close", () => forwarder.sockets.delete(socket));
        }
        client.pipe(upstream).pipe(client);
      }),
    );
    await new Promise<void>((resolve) => forwarder.server.listen(0, "127.0.0.1", resolve));
    return forwarder;
  }
  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

function url(userinfo: string, path = ""): string {
  return `amqp://${userinfo}@127.0.0.1:${counter.port}${path}`;
}

function transport(amqpUrl: string, logger: ReturnType<typeof recordingLogger>): WakeupTransport {
  const made = new RabbitMqTransport({ url: amqpUrl, topology: topology(prefix), logger, lastingRetryDelayMs: 100 });
  opened.push(made);
  return made;
}

beforeAll(async () => {
  counter = await CountingForwarder.start();
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((each) => each.close()));
});

afterAll(async () => {
  await counter?.close();
});

it("a refused password is logged once as an error naming the fix, retried in the background, and shown as refused", async () => {
  const logger = recordingLogger();
  const wrong = transport(url("guest:wrong"), logger);
  expect(wrong.broker).toMatchObject({ transport: "rabbitmq", state: "connecting" });
  const before = counter.accepted;
  wrong.start();
  await waitUntil(() => counter.accepted - before >= 4, "four refused connection attempts", 10_000);
  const errors = logger.lines.filter((line) => line.level === "error");
  expect(errors).toHaveLength(1);
  expect(errors[0]!.message).toBe(
    `broker connection failed and retrying will not fix it: RabbitMQ at amqp://guest:***@127.0.0.1:${counter.port} refused the user ` +
      "name or password (ACCESS_REFUSED): check the credentials in amqpUrl (the AMQP_URL environment variable, or --amqp-url " +
      "for task-runner), or create that user on the broker (rabbitmqctl add_user). Until then nothing is published: workers " +
      "poll the database and the cleaner sends due tasks, so tasks run late. Retrying every 100 ms without logging this again",
  );
  expect(JSON.stringify(logger.lines)).not.toContain("wrong");
  expect(logger.lines.filter((line) => /unreachable/.test(line.message))).toEqual([]);
  const state = wrong.broker;
  expect(state).toMatchObject({ transport: "rabbitmq", state: "refused", url: `amqp://guest:***@127.0.0.1:${counter.port}` });
  expect(state.error).toContain("ACCESS_REFUSED");
  expect(state.fix).toContain("check the credentials in amqpUrl");
  expect(state.since).toBeInstanceOf(Date);
  // The publisher's warning for each wake-up it could not send carries the reason too.
  const failed: Error[] = [];
  const hooked = wrong.publisher({ onFailed: (_ids, error) => failed.push(error) });
  hooked.publish("default", ["00000000-0000-4000-8000-000000000001"]);
  await hooked.flush();
  expect(failed[0]!.message).toMatch(/^broker is not connected \(refused: RabbitMQ at .* refused the user name or password/);
  expect(failed[0]).toBeInstanceOf(WakeupBrokerError);
  expect(failed[0]).toMatchObject({ code: "TASK_BROKER_FAILED" });
  await hooked.close();
});

it("a missing virtual host is logged once as an error naming the vhost and the fix", async () => {
  const logger = recordingLogger();
  const noVhost = transport(url("guest:guest", "/nope"), logger);
  const before = counter.accepted;
  noVhost.start();
  await waitUntil(() => counter.accepted - before >= 4, "four refused connection attempts", 10_000);
  const errors = logger.lines.filter((line) => line.level === "error");
  expect(errors).toHaveLength(1);
  expect(errors[0]!.message).toBe(
    `broker connection failed and retrying will not fix it: RabbitMQ at amqp://guest:***@127.0.0.1:${counter.port}/nope refused ` +
      'to open the virtual host "nope" (NOT_ALLOWED): check the path of amqpUrl (the AMQP_URL environment variable, or ' +
      "--amqp-url for task-runner) names an existing virtual host (rabbitmqctl list_vhosts) that the user has permissions on " +
      "(rabbitmqctl set_permissions). Until then nothing is published: workers poll the database and the cleaner sends due " +
      "tasks, so tasks run late. Retrying every 100 ms without logging this again",
  );
  expect(noVhost.broker).toMatchObject({ state: "refused" });
  expect(logger.lines.filter((line) => /unreachable/.test(line.message))).toEqual([]);
});

it("nothing listening stays transient: 'broker unreachable, retrying' as before, no error, state unreachable", async () => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  const logger = recordingLogger();
  const closed = openTransport({ amqpUrl: `amqp://guest:guest@127.0.0.1:${port}`, amqpPrefix: prefix, logger, maxReconnectDelayMs: 50 });
  opened.push(closed);
  closed.start();
  await waitUntil(() => closed.broker.state === "unreachable", "the unreachable state", 5000);
  expect(logger.lines.filter((line) => line.level === "error")).toEqual([]);
  expect(logger.find("broker unreachable, retrying")).toHaveLength(1);
  expect(logger.find("broker unreachable, retrying")[0]!.fields.error).toBe(`connect ECONNREFUSED 127.0.0.1:${port}`);
  expect(closed.broker.fix).toBeUndefined();
});

it("the right URL reads connected; without a URL the state is none", async () => {
  const logger = recordingLogger();
  const good = transport(url("guest:guest"), logger);
  expect(await good.settled(5000)).toBe(true);
  expect(good.broker).toMatchObject({ transport: "rabbitmq", state: "connected" });
  expect(good.broker.error).toBeUndefined();
  const polling = openTransport({ amqpPrefix: prefix, logger });
  expect(polling.broker).toEqual({ transport: "polling", state: "none" });
});

it("an unknown host is logged once as an error naming the host, keeps the normal backoff, and reads unreachable", async () => {
  const logger = recordingLogger();
  const unknown = openTransport({ amqpUrl: "amqp://guest:guest@no-such-host.invalid:5672", amqpPrefix: prefix, logger, maxReconnectDelayMs: 50 });
  opened.push(unknown);
  unknown.start();
  await waitUntil(() => unknown.broker.state === "unreachable", "the unreachable state", 10_000);
  await new Promise((resolve) => setTimeout(resolve, 500)); // several more attempts at the 50 ms backoff
  const errors = logger.lines.filter((line) => line.level === "error");
  expect(errors).toHaveLength(1);
  expect(errors[0]!.message).toMatch(
    /^broker connection failed and retrying will not fix it: the host name of amqp:\/\/guest:\*\*\*@no-such-host\.invalid:5672 is not known \(ENOTFOUND\): check the host in amqpUrl .* Retrying with backoff without logging this again$/,
  );
  expect(unknown.broker.fix).toContain("(in a container network: is the broker's service up?)");
});
