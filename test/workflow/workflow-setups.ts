// The setups workflows are tested on: every dialect with RabbitMQ wake-ups, PostgreSQL with NOTIFY, SQLite with its
// local sockets.

import { STORE_DIALECTS, type StoreDialect } from "../conformance/store/dialects.js";

export interface WorkflowSetup {
  dialect: StoreDialect;
  transport: string;
  /** The wake-up options of the app's client and the worker. */
  options: (amqpUrl: string, prefix: string) => Record<string, unknown>;
}

const rabbit = (amqpUrl: string, amqpPrefix: string) => ({ amqpUrl, amqpPrefix });
export const WORKFLOW_SETUPS: WorkflowSetup[] = [
  ...STORE_DIALECTS.map((dialect) => ({ dialect, transport: "RabbitMQ", options: rabbit })),
  ...STORE_DIALECTS.filter((dialect) => dialect.name === "postgresql").map((dialect) => ({
    dialect,
    transport: "NOTIFY",
    options: (_url: string, amqpPrefix: string) => ({ wakeups: "notify", amqpPrefix }),
  })),
  ...STORE_DIALECTS.filter((dialect) => dialect.name === "sqlite").map((dialect) => ({ dialect, transport: "local sockets", options: () => ({}) })),
];
