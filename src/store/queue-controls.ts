// The inputs and outputs of queue controls: a queue's pause and its limits (global concurrency, a rate of starts, and
// per-task concurrency by key), as the claim enforces them, and a queue's row as status and the dashboard show it.

/** The highest concurrency limit or number of starts a limit may declare. */
export const MAX_CONCURRENCY_LIMIT = 1_000_000;

/** A rate of starts: no more than `starts` claims in any window of `perMs` milliseconds. */
export interface RateLimit {
  starts: number;
  perMs: number;
}

/** What the claims of one queue must keep to, from the workers' declarations. */
export interface QueueLimits {
  /** At most this many tasks of the queue running at once, over every worker. Undefined: no queue-wide limit. */
  concurrency?: number;
  /** At most this many starts in any window. Undefined: no rate limit. */
  rateLimit?: RateLimit;
  /**
   * Per task name: at most this many of its tasks running at once with the same concurrency key (a task without a key
   * function has none: then at most this many of that name).
   */
  tasks?: Readonly<Record<string, number>>;
}

/** The limits of every limited queue a claimer serves, by queue. A queue absent here is claimed without a count. */
export type ClaimLimits = Readonly<Record<string, QueueLimits>>;

/** Why a claim left due tasks of a queue pending. `retryInMs`: when a rate window frees a start. */
export interface ClaimRefusal {
  queue: string;
  reason: "paused" | "limited";
  retryInMs?: number;
}

/** A queue's declared limits as its row keeps them, for status and the dashboard. */
export interface QueueDeclaration {
  queue: string;
  concurrency: number | null;
  rateLimit: RateLimit | null;
}

/** A queue's row: paused or not, and the limits its workers declared last. */
export interface QueueState extends QueueDeclaration {
  pausedAt: Date | null;
  updatedAt: Date;
}

/** The usage of a limited queue: its running tasks, the starts within the rate window, when the oldest of them leaves it. */
export interface QueueUsage {
  running: number;
  starts: number;
  freesInMs: number;
}

/** A due pending task a limited claim may take, with the running tasks of its group (name and concurrency key). */
export interface LimitedCandidate {
  id: string;
  name: string;
  queue: string;
  concurrencyKey: string | null;
  /** Running tasks with the same queue, name and concurrency key. */
  runningInGroup: number;
}

/** The state of an id a limited claim by ids was asked for. */
export interface LimitedIdRow extends LimitedCandidate {
  status: string;
  due: boolean;
}
