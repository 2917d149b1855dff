// The example app as each test file runs it: its own fresh database (db:setup applied), then `next start` of the one
// build made before the tests (`npm test` runs `next build` first), on a free port, in the given TASK_MODE.

import { join } from "node:path";
import { appDir, freePort, run, start, waitForHttp, type Started } from "./processes";
import type { TestServices } from "./services";

export const NEXT = join(appDir, "node_modules", "next", "dist", "bin", "next");
export const FLAKY_FAILURES = 2;

export interface ExampleApp {
  url: string;
  env: NodeJS.ProcessEnv;
  /** The `next start` process now running (a new one after restart()). */
  server: Started;
  /** Starts `next start` again on the same port and waits until it answers (after a kill, say). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startExampleApp(
  name: string,
  mode: "runner" | "serverless" | "self-hosted",
  services: TestServices,
  extraEnv: Record<string, string> = {},
): Promise<ExampleApp> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: services.databaseUrl,
    AMQP_URL: services.amqpUrl,
    AMQP_PREFIX: services.amqpPrefix,
    APP_URL: url,
    FLAKY_FAILURES: String(FLAKY_FAILURES),
    TASK_MODE: mode,
    NEXT_TELEMETRY_DISABLED: "1",
    ...extraEnv,
  };
  await run(`${name}-db-setup`, process.execPath, ["--import", "tsx", "scripts/db-setup.ts"], env);
  let starts = 0;
  const launch = async () => {
    starts += 1;
    const server = start(starts === 1 ? name : `${name}-${starts}`, process.execPath, [NEXT, "start", "--port", String(port), "--hostname", "127.0.0.1"], env);
    await waitForHttp(`${url}/api/reports`, server, 60_000);
    return server;
  };
  const app: ExampleApp = {
    url,
    env,
    server: await launch(),
    async restart() {
      await app.server.stop();
      app.server = await launch();
    },
    stop: () => app.server.stop(),
  };
  return app;
}
