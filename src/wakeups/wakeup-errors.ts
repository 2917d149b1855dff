// Errors of the wake-up transports: a wake-up or dead-task announcement the broker did not take, each with a stable
// code. A wake-up is a hint, so none of them loses a task: the rows stay pending for polling and the cleaner.

import { TaskQueueError } from "../errors.js";

/** RabbitMQ did not take a wake-up or announcement: not connected, the publisher closed, or the broker nacked it. */
export class WakeupBrokerError extends TaskQueueError {
  constructor(problem: string) {
    super("TASK_BROKER_FAILED", problem);
  }
}

/** A dead task could not be announced: only RabbitMQ has a dead-letter exchange to announce it on. */
export class DeadTaskNotAnnouncedError extends TaskQueueError {
  constructor(
    readonly taskId: string,
    why: string,
  ) {
    super("TASK_DEAD_NOT_ANNOUNCED", `Dead task ${taskId} was not announced: ${why}. Set amqpUrl to announce dead tasks on RabbitMQ.`);
  }
}
