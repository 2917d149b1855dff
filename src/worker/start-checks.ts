// What the worker checks before it starts anything: that the database answers and holds the task table, and that the
// broker does not refuse its credentials. A failure becomes one clear TaskQueueConfigError with the password hidden.

import amqp from "amqplib";
import type { Db } from "../db/driver.js";
import type { TaskTable } from "../db/table.js";
import { TaskQueueConfigError } from "../errors.js";
import { redactUrl } from "../redact-url.js";
import { closeConnection } from "../broker/connection.js";


/**
 * Reads nothing from the task table but needs it. Throws for what waiting will not fix (wrong credentials, no such
 * database, table or schema, no privilege); returns the problem, for the worker to log and outlive, when the server is
 * merely unreachable or busy (a network blip, a restart). `url` is undefined for a db the app passed in.
 */
export async function checkDatabase(db: Db, table: TaskTable, url: string | undefined): Promise<string | undefined> {
  try {
    await db.query(`SELECT 1 FROM ${table.sql} LIMIT 0`, []);
    return undefined;
  } catch (error) {
    const { code, message } = (error ?? {}) as { code?: string; message?: string };
    const where = url === undefined ? "the database given as db" : `the database at ${redactUrl(url)}`;
    const option = url === undefined ? "db" : "databaseUrl";
    let advice: string;
    let lasting = true;
    switch (code) {
      case "28P01":
      case "28000":
        advice = `the credentials were refused: check the user and password in ${option}`;
        break;
      case "3D000":
        advice = `that database does not exist: check the database name in ${option}`;
        break;
      case "42P01":
      case "3F000":
        advice = `the table ${table.sql} does not exist there: apply the migration, or set the worker's table/schema options to the ones taskQueue() uses`;
        break;
      case "42501":
        advice = `the user may not use ${table.sql}: grant it SELECT, INSERT, UPDATE and DELETE on the table`;
        break;
      default:
        lasting = false;
        advice = `is PostgreSQL running and reachable there? Check the host and port in ${option}`;
    }
    const problem = `the worker cannot use ${where}: ${message ?? String(error)}; ${advice}.`;
    if (lasting) throw new TaskQueueConfigError(option, problem);
    return problem;
  }
}

/**
 * Opens and closes one broker connection. Rejects only when the broker answered and refused (credentials, virtual
 * host): that will not heal by waiting. An unreachable broker is fine here: the worker polls until it is back.
 */
export async function checkBrokerAccess(url: string, timeoutMs = 2000): Promise<void> {
  let model: amqp.ChannelModel | undefined;
  try {
    model = await amqp.connect(url, { timeout: timeoutMs, noDelay: true });
  } catch (error) {
    const message = (error as Error)?.message ?? String(error);
    let advice: string | undefined;
    if (/ACCESS[-_]REFUSED/.test(message)) advice = "the credentials were refused: check the user and password in amqpUrl";
    else if (/Expected ConnectionOpenOk; got <ConnectionClose/.test(message)) {
      advice = "the broker closed the connection while opening it: check that the virtual host in amqpUrl exists and the user may use it";
    }
    if (advice) throw new TaskQueueConfigError("amqpUrl", `RabbitMQ at ${redactUrl(url)} refused the worker: ${message}; ${advice}.`);
    return;
  }
  model.on("error", () => {});
  await closeConnection(model, timeoutMs);
}

