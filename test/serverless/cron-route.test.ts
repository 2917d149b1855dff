// cronRoute() as a Next.js route handler gets it: a Request in, a Response out. Without the secret nothing runs; with
// it, the due tasks run and the answer says what the call did; the edge runtime is refused when the route is built.

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTasks } from "../../src/index.js";
import { cronRoute } from "../../src/next/index.js";
import { postgresStoreDialect } from "../conformance/store/dialects.js";
import { WorkerTestBed } from "../worker/harness.js";

const ran: string[] = [];
const tasks = defineTasks({
  ping: { payload: z.object({}), timeoutMs: 5_000, handler: async (_payload, ctx) => void ran.push(ctx.task.id) },
});

const request = (authorization?: string) => new Request("http://localhost/api/tasks/cron", { headers: authorization ? { authorization } : {} });

describe("cronRoute", () => {
  let bed: WorkerTestBed;
  const env = { CRON_SECRET: process.env.CRON_SECRET, NEXT_RUNTIME: process.env.NEXT_RUNTIME };

  beforeAll(async () => {
    bed = await WorkerTestBed.create(postgresStoreDialect);
  });
  afterEach(() => {
    for (const [key, value] of Object.entries(env)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });
  afterAll(async () => {
    await bed?.close();
  });

  it("refuses a request without the secret or with another one, runs nothing, and says why", async () => {
    process.env.CRON_SECRET = "s3cret-value";
    const id = await bed.insertTask("ping", {});
    const route = cronRoute({ tasks, databaseUrl: bed.url, budgetMs: 10_000 });
    for (const header of [undefined, "Bearer wrong", "s3cret-value", "Bearer s3cret-valuE", "bearer s3cret-value"]) {
      const response = await route(request(header));
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: "unauthorised: send Authorization: Bearer <CRON_SECRET>" });
    }
    expect(await bed.status(id)).toBe("pending");
    const unset = cronRoute({ tasks, databaseUrl: bed.url, budgetMs: 10_000 });
    delete process.env.CRON_SECRET;
    const response = await unset(request("Bearer anything"));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: "no secret: set CRON_SECRET in the deployment's environment (or pass cronRoute({ secret }))" });
    await bed.exec("DELETE FROM tasks");
  });

  it("with the secret, runs the due tasks and answers with the summary", async () => {
    const ids = await Promise.all([1, 2, 3].map(() => bed.insertTask("ping", {})));
    const route = cronRoute({ tasks, databaseUrl: bed.url, budgetMs: 10_000, secret: "given-secret" });
    const response = await route(request("Bearer given-secret"));
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toMatchObject({ ran: 3, succeeded: 3, failed: 0, ended: "idle" });
    for (const id of ids) expect(await bed.status(id)).toBe("succeeded");
    // A second ping finds nothing.
    expect(await (await route(request("Bearer given-secret"))).json()).toMatchObject({ ran: 0, ended: "idle", sweep: null });
    await route.close();
    await bed.exec("DELETE FROM tasks");
  });

  it("an authorised call with no database URL given or in DATABASE_URL answers 500 saying which option to set", async () => {
    const saved = process.env.DATABASE_URL;
    delete process.env.DATABASE_URL;
    const route = cronRoute({ tasks, budgetMs: 10_000, secret: "given-secret" });
    try {
      const response = await route(request("Bearer given-secret"));
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ error: expect.stringMatching(/databaseUrl.*is required: pass cronRoute\(\{ databaseUrl \}\) or set DATABASE_URL/) });
    } finally {
      if (saved !== undefined) process.env.DATABASE_URL = saved;
      await route.close();
    }
  });

  it("refuses the edge runtime when the route is made, saying to use the Node.js runtime", () => {
    process.env.NEXT_RUNTIME = "edge";
    expect(() => cronRoute({ tasks, budgetMs: 10_000 })).toThrow(/runs on the Node\.js runtime, not the edge runtime/);
  });
});
