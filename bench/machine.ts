// What the numbers were measured on: cores, memory, load, and the versions of Node, PostgreSQL, RabbitMQ and the peers.
// The load average is read before and after, since other work on a shared machine moves every figure.

import { readFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import amqp from "amqplib";
import pg from "pg";

function packageVersion(name: string): string {
  const url = new URL(`./node_modules/${name}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, "utf8")) as { version: string }).version;
}

export async function describeMachine(databaseUrl: string, amqpUrl: string): Promise<Record<string, unknown>> {
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
    rabbitmq: String(properties.version ?? "unknown"),
    graphileWorker: packageVersion("graphile-worker"),
    pgBoss: packageVersion("pg-boss"),
    loadAverageAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}
