// Finds the PostgreSQL and RabbitMQ the tests use: DATABASE_URL / AMQP_URL when set, else the local services when
// reachable, else throwaway containers through testcontainers when Docker is there, else a failure saying what to start.

import { connect } from "node:net";

export interface Services {
  databaseUrl: string;
  amqpUrl: string;
  /** Stops containers this process started (nothing for env or local services). */
  stop(): Promise<void>;
}

const LOCAL_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/postgres";
const LOCAL_AMQP_URL = "amqp://guest:guest@127.0.0.1:5672";

export async function resolveServices(env: NodeJS.ProcessEnv = process.env): Promise<Services> {
  let databaseUrl = env.DATABASE_URL;
  let amqpUrl = env.AMQP_URL;
  if (!databaseUrl && (await reachable(LOCAL_DATABASE_URL))) databaseUrl = LOCAL_DATABASE_URL;
  if (!amqpUrl && (await reachable(LOCAL_AMQP_URL))) amqpUrl = LOCAL_AMQP_URL;
  if (databaseUrl && amqpUrl) return { databaseUrl, amqpUrl, stop: async () => {} };
  return startContainers(databaseUrl, amqpUrl);
}

/** True when a TCP connection to the URL's host and port opens within a second. */
export function reachable(url: string): Promise<boolean> {
  const parsed = new URL(url);
  const port = Number(parsed.port || (parsed.protocol.startsWith("amqp") ? 5672 : 5432));
  return new Promise((resolve) => {
    const socket = connect({ host: parsed.hostname, port, timeout: 1000 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
    socket.once("timeout", () => done(false));
  });
}

async function startContainers(databaseUrl: string | undefined, amqpUrl: string | undefined): Promise<Services> {
  const missing = [!databaseUrl && "PostgreSQL on 127.0.0.1:5432", !amqpUrl && "RabbitMQ on 127.0.0.1:5672"].filter(Boolean);
  const advice =
    `The tests need ${missing.join(" and ")}. Set DATABASE_URL / AMQP_URL, or start the local services ` +
    `(PostgreSQL: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start; RabbitMQ: rabbitmq-server -detached), ` +
    `or run Docker so testcontainers can start them.`;
  let testcontainers: typeof import("testcontainers");
  try {
    testcontainers = await import("testcontainers");
    await testcontainers.getContainerRuntimeClient();
  } catch (error) {
    throw new Error(`${advice} (Docker: ${(error as Error).message.split("\n")[0]})`, { cause: error });
  }
  const stops: Array<() => Promise<unknown>> = [];
  if (!databaseUrl) {
    const pg = await new testcontainers.GenericContainer("postgres:16-alpine")
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: "trust" })
      .withExposedPorts(5432)
      .withWaitStrategy(testcontainers.Wait.forLogMessage(/ready to accept connections/, 2))
      .start();
    stops.push(() => pg.stop());
    databaseUrl = `postgresql://postgres@${pg.getHost()}:${pg.getMappedPort(5432)}/postgres`;
  }
  if (!amqpUrl) {
    const rabbit = await new testcontainers.GenericContainer("rabbitmq:3-alpine")
      .withExposedPorts(5672)
      .withWaitStrategy(testcontainers.Wait.forLogMessage(/Server startup complete/))
      .start();
    stops.push(() => rabbit.stop());
    amqpUrl = `amqp://guest:guest@${rabbit.getHost()}:${rabbit.getMappedPort(5672)}`;
  }
  return { databaseUrl, amqpUrl, stop: async () => void (await Promise.all(stops.map((stop) => stop()))) };
}
