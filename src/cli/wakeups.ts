// Sends the wake-ups of tasks an operator command made runnable (RabbitMQ, NOTIFY, or SQLite's local sockets), so they run at once, and says
// what will happen to them: woken now, found by the workers' next poll (no transport sends anything), or woken by the
// cleaner's next sweep (the transport did not confirm).

import type { Logger } from "../logger.js";
import type { CommandConfig } from "./command-context.js";
import type { Store } from "../store/store.js";
import type { WakeupTarget } from "../store/task-writes.js";
import { openTransport } from "../wakeups/open-transport.js";
import { WakeupSender } from "../wakeups/wakeup-sender.js";
import { DEFAULT_POLL_INTERVAL_MS } from "../worker/worker-options.js";

/** What became of the wake-ups of the tasks a command changed. */
interface WakeResult {
  /** Tasks changed. */
  changed: number;
  /** Wake-ups the transport confirmed. */
  woken: number;
  /** Whether the transport sends wake-ups at all (false: workers find tasks by polling). */
  sends: boolean;
  /** The transport's name for people: "RabbitMQ", "PostgreSQL NOTIFY". */
  transport: string;
  /** How often the workers poll, from the config's worker options (or the default). */
  pollIntervalMs: number;
}

const TRANSPORT_NAMES: Record<string, string> = { rabbitmq: "RabbitMQ", notify: "PostgreSQL NOTIFY", "in-process": "the local wake-up socket" };

/** Sends wake-ups for `tasks` and says what the transport did with them. Never throws. */
export async function wakeTasks(config: CommandConfig, store: Store, tasks: readonly WakeupTarget[], logger: Logger): Promise<WakeResult> {
  const pollIntervalMs = config.worker?.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const transport = openTransport({ ...config, logger, store, maxReconnectDelayMs: 1000, inProcess: store.wakeupIdentity });
  const result = { changed: tasks.length, woken: 0, sends: transport.publishes, transport: TRANSPORT_NAMES[transport.name] ?? transport.name, pollIntervalMs };
  if (tasks.length === 0 || !transport.publishes) {
    await transport.close();
    return result;
  }
  const sender = new WakeupSender({ transport, logger, connectTimeoutMs: 5000, markConfirmed: (ids) => store.markPublished(ids) });
  try {
    return { ...result, woken: await sender.sendAndCount(tasks) };
  } finally {
    await sender.close();
    await transport.close();
  }
}

/** What happens next to the tasks, as the end of a sentence: "woken now", "a worker's next poll runs it, …". */
export function wakeNote({ changed, woken, sends, transport, pollIntervalMs }: WakeResult): string {
  const them = changed === 1 ? "it" : "them";
  if (changed === 0) return "nothing to wake";
  if (woken === changed) return "woken now";
  if (!sends) return `no wake-up to send (the workers poll): a running worker picks ${them} up at its next poll, within ${pollIntervalMs} ms (pollIntervalMs)`;
  const cleaner = "the leading cleaner sends the wake-up once the task has waited unpublishedGraceMs (2 s by default)";
  if (woken === 0) return `not woken now (${transport} did not confirm it): ${cleaner}`;
  return `${woken} of ${changed} woken now (${transport} did not confirm the rest): for the rest, ${cleaner}`;
}
