// `npm run dev`: prepares the database (db:setup), then runs the Next.js dev server and, by TASK_MODE, what runs the
// tasks beside it until Ctrl-C: the task runner (`task-runner start`, the default "runner" mode); in "serverless" mode
// a stand-in for the platform's scheduler that calls the cron route every 5 s; in "self-hosted" mode nothing (the dev
// server runs the worker itself, through instrumentation.ts).
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const app = fileURLToPath(new URL("..", import.meta.url));
const port = process.env.PORT || "3000";
// The worker calls the app's flaky endpoint, so it must know where the dev server listens.
const env = {
  NEXT_TELEMETRY_DISABLED: "1", // an example should not phone home; set it to 0 to allow Next.js telemetry
  ...process.env,
  PORT: port,
  APP_URL: process.env.APP_URL || `http://127.0.0.1:${port}`,
};
const mode = env.TASK_MODE || "runner";
if (!["runner", "serverless", "self-hosted"].includes(mode)) {
  console.error(`TASK_MODE must be "runner", "serverless" or "self-hosted", got ${JSON.stringify(mode)}.`);
  process.exit(1);
}
// The serverless mode's cron route needs a secret; one made up for this session when none is set.
if (mode === "serverless") env.CRON_SECRET ||= randomBytes(16).toString("hex");

try {
  execFileSync(process.execPath, ["--import", "tsx", "scripts/db-setup.ts"], { cwd: app, stdio: "inherit", env });
} catch {
  process.exit(1); // db:setup printed why
}

const children = [spawn(process.execPath, [join(app, "node_modules/next/dist/bin/next"), "dev", "--port", port], { cwd: app, stdio: "inherit", env })];
if (mode === "runner") children.push(spawn(join(app, "node_modules/.bin/task-runner"), ["start"], { cwd: app, stdio: "inherit", env }));
let pinger;
if (mode === "serverless") {
  // What Vercel Cron or an EventBridge schedule does in production, every 5 s here.
  pinger = setInterval(() => {
    fetch(`${env.APP_URL}/api/tasks/cron`, { headers: { authorization: `Bearer ${env.CRON_SECRET}` } }).catch(() => {});
  }, 5_000);
}

let stopping = false;
function stopAll(signal) {
  if (stopping) return;
  stopping = true;
  clearInterval(pinger);
  for (const child of children) if (child.exitCode === null) child.kill(signal);
}
// Ctrl-C reaches both children through the terminal; a SIGTERM sent to this script alone is passed on.
process.on("SIGINT", () => stopAll("SIGINT"));
process.on("SIGTERM", () => stopAll("SIGTERM"));

let exitCode = 0;
await Promise.all(
  children.map(
    (child) =>
      new Promise((resolve) =>
        child.once("exit", (code) => {
          if (!stopping && code !== 0) {
            exitCode = code ?? 1;
            console.error(`${child.spawnargs.slice(1, 3).join(" ")} exited with ${code}; stopping the other one.`);
          }
          stopAll("SIGTERM");
          resolve();
        }),
      ),
  ),
);
process.exit(exitCode);
