// `task-runner run <id>`: makes a delayed (or retry-waiting) pending task due now and wakes it.

import { COMMON_HELP, commandConfig, commandLogger, commandTable, parseCommand, type CliIo } from "./command-context.js";
import { withStore } from "./database-session.js";
import { EXIT_OK } from "./exit-codes.js";
import { notActionable, taskIdArgument } from "./task-lookup.js";
import { wakeNote, wakeTasks } from "./wakeups.js";

const runNowHelp = `Usage: task-runner run <id>

Makes a pending task that waits for its run_at (delayed, or waiting for a retry) due now, and sends its wake-up so it
runs at once (with polling, workers pick it up at their next poll). Exit code 3 says the task is missing or not pending.

${COMMON_HELP}`;

export async function runNowCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand("run", argv, {});
  if (values.help) {
    io.out(runNowHelp);
    return EXIT_OK;
  }
  const id = taskIdArgument("run", positionals);
  const config = await commandConfig(values, io, { database: true });
  const table = commandTable(config);
  const logger = commandLogger(values, config, io, "warn");
  return withStore(config.databaseUrl!, table, config.sources.databaseUrl, async (store) => {
    const changed = await store.runTaskNow(id);
    if (changed.length === 0) throw await notActionable(store, table, id, "run now", "pending");
    const woken = await wakeTasks(config, store, changed, logger);
    io.out(`Task ${id} is due now: ${wakeNote(woken)}.\n`);
    return EXIT_OK;
  });
}
