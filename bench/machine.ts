// What the numbers were measured on: cores, memory, load, and the versions of Node, PostgreSQL, RabbitMQ, MySQL/MariaDB
// (when a peer ran on it) and the peers.
// The load average is read before and after, since other work on a shared machine moves every figure.

import { readFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import amqp from "amqplib";
import * as mariadb from "mariadb";
import pg from "pg";

function packageVersion(name: string): string {
  const url = new URL(`./node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
}

export async function describeMachine(databaseUrl: string, amqpUrl: string, mysqlUrl?: string): Promise<Record<string, unknown>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const postgres = (await client.query<{ server_version: string }>("SHOW server_version")).rows[0]!.server_version;
  await client.end();
  const model = await amqp.connect(amqpUrl);
  const properties = (model.connection as unknown as { serverProperties?: Record<string, unknown> }).serverProperties ?? {};
  await model.close();
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    postgres,
    ...(mysqlUrl ? { mysql: await mysqlVersion(mysqlUrl) } : {}),
    rabbitmq: typeof properties.version === "string" ? properties.version : "unknown",
    graphileWorker: packageVersion("graphile-worker"),
    pgBoss: packageVersion("pg-boss"),
    loadAverageAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** The version a MySQL/MariaDB server reports, e.g. "10.11.19-MariaDB-0+deb12u1". */
async function mysqlVersion(serverUrl: string): Promise<string> {
  const url = new URL(serverUrl);
  const connection = await mariadb.createConnection({
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username) || "root",
    password: decodeURIComponent(url.password) || undefined,
  });
  try {
    const rows = await connection.query<Array<{ version: string }>>("SELECT VERSION() AS version");
    return rows[0]!.version;
  } finally {
    await connection.end();
  }
}
