// The four options that name where tasks live, shared by taskQueue(), createWorker(), createCleaner() and the runner
// config. Every process of one app must give the same values.

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
}
