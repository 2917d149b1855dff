// The poller on its own (no database): a catch-up goes on poll after poll while each fills every free slot, even when
// the tasks of a poll finish, and free their slots, before the poll itself returns (a no-op handler does).

import { expect, it } from "vitest";
import { silentLogger } from "../../src/index.js";
import { Poller } from "../../src/worker/poller.js";
import { waitUntil } from "../support/wait.js";

it("replays a slot's kick that came while its poll was in flight, so a backlog drains without wake-ups", async () => {
  let backlog = 50;
  let polls = 0;
  const poller: Poller = new Poller({
    intervalMs: 60_000,
    logger: silentLogger,
    active: () => false, // wake-ups flow: only the catch-up polls
    poll: async () => {
      polls += 1;
      const taken = Math.min(10, backlog);
      backlog -= taken;
      await Promise.resolve(); // the claim statement
      poller.kick(); // the claimed tasks already ran and freed their slots
      return taken === 10;
    },
  });
  poller.catchUp();
  await waitUntil(() => backlog === 0 && polls === 6, "the backlog to drain in 5 full polls and one that finds nothing", 2000);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(polls).toBe(6); // the catch-up ends with the poll that found less than it could take
  await poller.stop();
});
