// Child of the missing-driver test (run with the mariadb package hidden): starts a worker on the mysql:// URL in
// MYSQL_TEST_URL, then opens a store on it, and prints how each failed, as one JSON line.

import { createWorker, openStore, silentLogger } from "../../src/index.js";
import { plainTasks } from "../conformance/tasks.js";

const outcome = (error: unknown) => {
  const e = error as { name?: string; code?: string; message?: string };
  return { name: e.name, code: e.code, message: e.message };
};

const worker = createWorker({ tasks: plainTasks, databaseUrl: process.env.MYSQL_TEST_URL!, logger: silentLogger });
const started = await worker.start().then(() => ({ started: true }), outcome);
await worker.stop();
let opened: unknown;
try {
  await openStore(process.env.MYSQL_TEST_URL!).close();
  opened = { opened: true };
} catch (error) {
  opened = outcome(error);
}
process.stdout.write(`${JSON.stringify({ worker: started, store: opened })}\n`);
