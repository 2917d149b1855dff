// No transport: the fallback when no broker is configured. Nothing is published; workers find due tasks by polling
// the table every pollIntervalMs, so tasks run, only up to one interval later.

import type { DeadTaskNotification } from "./dead-task-notification.js";
import type { BrokerState, ListenOptions, PublishHooks, WakeupListener, WakeupPublisher, WakeupTransport } from "./transport.js";
import { DeadTaskNotAnnouncedError } from "./wakeup-errors.js";

export class PollingTransport implements WakeupTransport {
  readonly name = "polling";
  readonly publishes = false;
  readonly notifiesDead = false;
  readonly reachable = true;

  get broker(): BrokerState {
    return { transport: "polling", state: "none" };
  }

  async queueState(): Promise<undefined> {
    return undefined;
  }

  start(): void {}

  async settled(): Promise<boolean> {
    return false;
  }

  async checkAccess(): Promise<void> {}

  publisher(_hooks?: PublishHooks): WakeupPublisher {
    return {
      publish() {},
      notifyDead: (notification: DeadTaskNotification) => Promise.reject(new DeadTaskNotAnnouncedError(notification.id, "no broker is configured")),
      flush: async () => {},
      close: async () => {},
    };
  }

  listen(_options: ListenOptions): WakeupListener {
    return {
      consuming: false,
      start() {},
      waitConsuming: async () => false,
      cancel: async () => {},
      close: async () => {},
      queueState: async () => undefined,
    };
  }

  async idleQueues(): Promise<string[]> {
    return [];
  }

  async close(): Promise<void> {}
}
