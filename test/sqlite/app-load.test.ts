// SQLite under an app's load, woken through RabbitMQ and through the local sockets: a worker and a cleaner in the app's
// process, two worker processes, handlers writing through a client of their own, 200 concurrent transactions with
// rollbacks after a failed COMMIT. Every committed task succeeds at its first attempt (no handler write waits out the
// busy timeout), nothing rolled back runs. The package's transactions never hold the write lock across other code of
// the process (test/sqlite/event-loop-lock.test.ts): before they did, handlers' writes waited 5 s at a time and tasks
// stayed pending.

import { describe, expect, inject, it } from "vitest";
import { runAppLoad, type AppLoadWakeups } from "../support/sqlite-app-load.js";

describe.each<AppLoadWakeups>(["rabbitmq", "sockets"])("SQLite app under load, woken by %s", (wakeups) => {
  it("runs every committed task once, at its first attempt, and nothing rolled back", async () => {
    const result = await runAppLoad({ wakeups, amqpUrl: inject("amqpUrl"), waitMs: 45_000 });
    expect(result.committed).toBe(160);
    expect(result.rolledBack).toBe(40);
    expect(result.writes.filter((write) => write.error !== undefined)).toEqual([]);
    expect(result.unfinished).toBe(0);
    expect(result.retried).toBe(0);
    expect(result.rolledBackTasks).toBe(0);
    expect(result.writes.length).toBe(160);
  }, 120_000);
});
