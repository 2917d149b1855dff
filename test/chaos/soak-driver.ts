// Child-process entry of the soak's driver: the app-like load (soak-load.ts) in a process of its own, so it neither
// starves nor is starved by the orchestrator's TCP proxies. Talks to the orchestrator over IPC (see soak-driver-link.ts).

import { topology } from "../../src/wakeups/rabbitmq/topology.js";
import { openStore, silentLogger, taskQueue } from "../../src/index.js";
import { breakCommit, soakPrisma } from "./soak-prisma.js";
import { driveLoad, type LoadDelta } from "./soak-load.js";
import { SeededRandom } from "./seeded-random.js";
import { RawBroker } from "./soak-raw-broker.js";
import { soakTasks } from "./soak-tasks.js";
import { rawWakeups, type SoakWakeups } from "./soak-wakeups.js";

/** Orchestrator → driver. */
export type ToDriver = { type: "early-wakeup" } | { type: "failing-commit" } | { type: "stop" };
/** Driver → orchestrator. */
export type FromDriver = { type: "ready" } | { type: "tx"; delta: LoadDelta } | { type: "done" } | { type: "error"; message: string };

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`soak-driver: ${name} is not set`);
  return value;
};
const send = (message: FromDriver) => process.send!(message);

const prefix = env("SOAK_PREFIX");
const quorumQueues = process.env.SOAK_QUORUM === "1";
const names = topology(prefix, quorumQueues);
// Early wake-ups go straight to the broker (not through the proxy that fails publishing on purpose).
const raw = await RawBroker.open(env("SOAK_AMQP_DIRECT"), names);
// Only to classify the database's errors: a transient one (SQLite's lock held past the busy timeout) fails the
// transaction, which the app would retry; the soak records it as rolled back and checks that it left nothing.
const store = openStore(env("DATABASE_URL"), { max: 1 });
const wakeups = (process.env.SOAK_WAKEUPS || undefined) as SoakWakeups;
const prisma = soakPrisma(env("DATABASE_URL")).$extends(
  taskQueue({
    tasks: soakTasks,
    amqpUrl: process.env.AMQP_URL || undefined,
    amqpPrefix: prefix,
    quorumQueues,
    wakeups: wakeups === "notify" ? "notify" : undefined,
    logger: silentLogger,
  }),
);
// With NOTIFY or local sockets the early wake-up goes out at once, outside the transaction it overtakes.
const early = rawWakeups(wakeups, { prefix, broker: raw, store });

let stopped = false;
let earlyWakeups = 0;
let failingCommits = 0;
process.on("message", (message: ToDriver) => {
  if (message.type === "early-wakeup") earlyWakeups++;
  if (message.type === "failing-commit") failingCommits++;
  if (message.type === "stop") stopped = true;
});
process.on("disconnect", () => (stopped = true));

send({ type: "ready" });
try {
  await driveLoad(
    prisma,
    new SeededRandom(Number(env("SOAK_SEED"))),
    {
      publishRaw: (ids) => {
        if (ids.length > 0) early.publish(ids);
      },
      takeEarlyWakeup: () => (earlyWakeups > 0 ? (earlyWakeups--, true) : false),
      takeFailingCommit: () => (failingCommits > 0 ? (failingCommits--, true) : false),
      breakCommit: (tx) => breakCommit(env("DATABASE_URL"), prisma, tx),
      settled: (delta) => send({ type: "tx", delta }),
      // A transaction that outlived Prisma's interactive timeout on a loaded machine is rolled back by the client (P2028):
      // failed like one the database refused, so its tasks must never run, which the checker verifies.
      rolledBackByDatabase: (error) => (!store.classify(error).lasting && store.classify(error).kind === "unreachable") || expiredTransaction(error),
    },
    { concurrency: Number(env("SOAK_CONCURRENCY")), perSecond: Number(env("SOAK_RATE")), waitForChildren: process.env.SOAK_WAIT_CHILDREN === "1" },
    () => !stopped,
  );
  await raw.waitForConfirms();
  await prisma.$taskQueue.flush();
  send({ type: "done" });
} catch (error) {
  send({ type: "error", message: (error as Error).stack ?? String(error) });
} finally {
  await prisma.$taskQueue.close();
  await prisma.$disconnect();
  await early.close();
  await store.close();
  await raw.close();
  process.disconnect();
}

/** Prisma's "Transaction API error" for an interactive transaction past its timeout: the client rolled it back. */
function expiredTransaction(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "P2028" && /expired transaction/i.test((error as Error).message);
}
