// The wake-ups of tasks due later, as workers of an earlier version read them: a RabbitMQ body keeps its ids where they
// were (such a worker claims them, is told "not due" and drops them), and a NOTIFY payload names no possible queue.

import { describe, expect, it } from "vitest";
import { parseWakeupPayload } from "../../src/dialects/postgres/sql/notify-wakeups.js";
import { queueNameProblem } from "../../src/names.js";
import { decodeWakeup, encodeWakeup } from "../../src/wakeups/rabbitmq/wakeup-message.js";

const ids = [crypto.randomUUID(), crypto.randomUUID()];

describe("wake-ups of tasks due later", () => {
  it("RabbitMQ: the body keeps its ids array, with one time left per id beside it", () => {
    const body = encodeWakeup(ids, [300, 4500]);
    expect((JSON.parse(body.toString()) as { ids: unknown }).ids).toEqual(ids);
    expect(decodeWakeup(body)).toEqual({ ids, dueInMs: [300, 4500] });
    expect(decodeWakeup(encodeWakeup(ids))).toEqual({ ids });
  });

  it("RabbitMQ: a time left that is not one number ≥ 0 per id makes the body malformed", () => {
    for (const dueInMs of [[300], [300, -1], [300, "1"], "300"]) {
      const body = Buffer.from(JSON.stringify({ ids, dueInMs }));
      expect(decodeWakeup(body)).toEqual({ problem: "dueInMs is not one number of milliseconds ≥ 0 per id" });
    }
  });

  it("NOTIFY: the payload's first field is no queue name an earlier reader could serve, and this one reads the run_at of each id", () => {
    const payload = `@default:${ids[0]}/1764100000123,${ids[1]}/1764100004500`;
    const earlierReader = payload.slice(0, payload.indexOf(":"));
    expect(queueNameProblem(earlierReader)).toBeDefined();
    expect(parseWakeupPayload(payload)).toEqual({ queue: "default", ids, runAtMs: [1764100000123, 1764100004500] });
    expect(parseWakeupPayload(`default:${ids.join(",")}`)).toEqual({ queue: "default", ids });
    expect(parseWakeupPayload(`@default:${ids[0]}`)).toBeUndefined();
  });
});
