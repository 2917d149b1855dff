// The task of the task-runner tests: `slow` waits until the file RUNNER_GATE exists, so the test decides when it ends.

import { existsSync } from "node:fs";
import { z } from "zod";
import { defineTasks } from "../../src/index.js";

export const runnerTasks = defineTasks({
  slow: {
    payload: z.object({}),
    handler: async () => {
      while (!existsSync(process.env.RUNNER_GATE!)) await new Promise((resolve) => setTimeout(resolve, 20));
      return { drained: true };
    },
  },
});
