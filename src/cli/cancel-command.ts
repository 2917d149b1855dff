// `task-runner cancel <id>`: cancels a pending task so it never runs. A running task cannot be cancelled.

import { COMMON_HELP, commandConfig, commandTable, parseCommand, type CliIo } from "./command-context.js";
import { withStore } from "./database-session.js";
import { EXIT_OK } from "./exit-codes.js";
import { notActionable, taskIdArgument } from "./task-lookup.js";

const cancelHelp = `Usage: task-runner cancel <id>

Cancels a pending task (due or delayed, or a workflow waiting) so that it never runs, with the pending tasks it started
as a workflow's children (and theirs). A running task cannot be cancelled; exit code 3 says the task is missing or not
pending.

${COMMON_HELP}`;

export async function cancelCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand("cancel", argv, {});
  if (values.help) {
    io.out(cancelHelp);
    return EXIT_OK;
  }
  const id = taskIdArgument("cancel", positionals);
  const config = await commandConfig(values, io, { database: true });
  const table = commandTable(config);
  return withStore(config.databaseUrl!, table, config.sources.databaseUrl, async (store) => {
    const changed = await store.cancelTask(id);
    if (changed.length === 0) throw await notActionable(store, table, id, "cancelled", "pending");
    const children = changed.length - 1;
    io.out(`Cancelled task ${id}${children > 0 ? ` and ${children} pending ${children === 1 ? "task" : "tasks"} it started (its children and theirs)` : ""}.\n`);
    return EXIT_OK;
  });
}
