// The options that name where tasks live and how their wake-ups travel, shared by taskQueue(), createWorker(),
// createCleaner(), the runner config and the dashboard. Every process of one app must give the same values.

/** How wake-ups travel from a commit to a worker. See docs/transports.md. */
export type WakeupsChoice = "rabbitmq" | "notify" | "polling";

export interface NamingOptions {
  /** The task table. Default "tasks". Must match the Prisma model's @@map and every other process of the app. */
  table?: string;
  /** PostgreSQL schema of the table. Default: none, so the connection's search_path decides. */
  schema?: string;
  /**
   * Prefix of the RabbitMQ exchange and queue names. Default "task_queue". Two apps on one broker use two prefixes;
   * the processes of one app must share it.
   */
  amqpPrefix?: string;
  /**
   * Declare quorum queues (replicated, for RabbitMQ clusters) instead of classic durable queues. Default false. Every
   * process must agree: RabbitMQ refuses to redeclare an existing queue with another type.
   */
  quorumQueues?: boolean;
  /**
   * How wake-ups reach workers (docs/transports.md). Default: "rabbitmq" when amqpUrl is set; else "notify" on
   * PostgreSQL (LISTEN/NOTIFY, no broker: sent inside the enqueuing transaction, on channel "<amqpPrefix>.wakeups");
   * else in-process delivery plus polling on SQLite, polling on MySQL. "polling" sends nothing: workers find tasks up to
   * one poll interval late. "notify" on SQLite or MySQL throws TaskQueueConfigError. Trade-off of "notify": a
   * notification that finds no listener is lost (the cleaner re-sends it after republishAfterMs), and LISTEN needs a
   * session-pooled or direct connection (not PgBouncer in transaction mode: see the worker's listenUrl).
   */
  wakeups?: WakeupsChoice;
}
