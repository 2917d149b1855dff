// The assertions about what was enqueued, over a recorder's list. A failure throws TaskAssertionError whose message
// lists what WAS enqueued, with the first difference of each task of the expected name, so no debugger is needed.

import type { CommittedEnqueue } from "../enqueue/committed-enqueues.js";
import { describeMatch, mismatch, show, type EnqueueMatch } from "./enqueue-match.js";
import { TaskAssertionError } from "./testing-errors.js";

const SINCE = "through this client since the recorder started (or was last cleared)";

/** The first enqueue of `name` that matches; throws TaskAssertionError when none does. */
export function assertEnqueued(enqueues: readonly CommittedEnqueue[], name: string, match: EnqueueMatch): CommittedEnqueue {
  const found = enqueues.find((enqueue) => enqueue.name === name && mismatch(enqueue, match) === undefined);
  if (found) return found;
  const expected = `Expected task "${name}" to be enqueued${describeMatch(match)}`;
  if (enqueues.length === 0) throw new TaskAssertionError(`${expected}, but nothing was enqueued ${SINCE}.`);
  const sameName = enqueues.filter((enqueue) => enqueue.name === name).length;
  const verdict = sameName === 0 ? `no task "${name}" was enqueued` : `none of the ${sameName} "${name}" tasks matches`;
  throw new TaskAssertionError(
    `${expected}, but ${verdict}. Enqueued ${SINCE}:\n${listing(enqueues, (enqueue) => (enqueue.name === name ? mismatch(enqueue, match) : undefined))}`,
  );
}

/** Throws TaskAssertionError when an enqueue of `name` matches (any enqueue of that name, when `match` is empty). */
export function refuteEnqueued(enqueues: readonly CommittedEnqueue[], name: string, match: EnqueueMatch): void {
  const matching = enqueues.filter((enqueue) => enqueue.name === name && mismatch(enqueue, match) === undefined);
  if (matching.length === 0) return;
  const count = matching.length === 1 ? "1 was" : `${matching.length} were`;
  throw new TaskAssertionError(`Expected no task "${name}" to be enqueued${describeMatch(match)}, but ${count}:\n${listing(matching)}`);
}

/** Throws TaskAssertionError when anything was enqueued. */
export function assertNothingEnqueued(enqueues: readonly CommittedEnqueue[]): void {
  if (enqueues.length === 0) return;
  const count = enqueues.length === 1 ? "1 task was" : `${enqueues.length} tasks were`;
  throw new TaskAssertionError(`Expected nothing to be enqueued, but ${count} ${SINCE}:\n${listing(enqueues)}`);
}

/** One numbered line per enqueue, with `note` (the reason it did not match) after a dash when there is one. */
function listing(enqueues: readonly CommittedEnqueue[], note: (enqueue: CommittedEnqueue) => string | undefined = () => undefined): string {
  return enqueues
    .map((enqueue, index) => {
      const reason = note(enqueue);
      return `  ${index + 1}. ${describeEnqueue(enqueue)}${reason ? ` — ${reason}` : ""}`;
    })
    .join("\n");
}

/** One enqueue in words: its name and payload, then the options that differ from the usual defaults, then its id. */
function describeEnqueue(enqueue: CommittedEnqueue): string {
  const options = [`queue ${JSON.stringify(enqueue.queue)}`];
  if (enqueue.key !== null) options.push(`key ${JSON.stringify(enqueue.key)}`);
  if (enqueue.priority !== 0) options.push(`priority ${enqueue.priority}`);
  options.push(`maxAttempts ${enqueue.maxAttempts}`);
  if (enqueue.delayMs !== 0) options.push(`delayMs ${enqueue.delayMs}`);
  if (!enqueue.due && enqueue.created) options.push(`runAt ${enqueue.runAt.toISOString()}`);
  if (!enqueue.created) options.push("an existing task: its key matched");
  return `"${enqueue.name}" payload ${show(enqueue.payload)}, ${options.join(", ")} (id ${enqueue.id})`;
}
