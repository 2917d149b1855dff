// `task-runner retry <id>` and `task-runner retry --dead [--name <task>]`: put dead (or cancelled) tasks back to
// pending with fresh attempts, wake them so they run at once, and say what happens to them next.

import type { WakeupTarget } from "../store/task-writes.js";
import { COMMON_HELP, commandConfig, commandLogger, commandTable, parseCommand, type CliIo } from "./command-context.js";
import { withStore } from "./database-session.js";
import { CliError, EXIT_OK, EXIT_USAGE } from "./exit-codes.js";
import { notActionable, taskIdArgument } from "./task-lookup.js";
import { wakeNote, wakeTasks } from "./wakeups.js";

const retryHelp = `Usage: task-runner retry <id>
       task-runner retry --dead [--name <task>]

Puts a dead or cancelled task back to pending with its attempts reset, and sends its wake-up (RabbitMQ or PostgreSQL
NOTIFY) so it runs at once; with polling, workers pick it up at their next poll. With --dead, does so for every dead
task (of one task name with --name).

Options:
      --dead               retry every dead task
      --name <task>        with --dead: only tasks of this name

${COMMON_HELP}`;

const BATCH = 10_000;

export async function retryCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand("retry", argv, { dead: { type: "boolean" }, name: { type: "string" } });
  if (values.help) {
    io.out(retryHelp);
    return EXIT_OK;
  }
  if (values.dead && positionals.length > 0) throw new CliError("give either a task id or --dead, not both.", EXIT_USAGE);
  if (values.name !== undefined && !values.dead) throw new CliError("--name only goes with --dead.", EXIT_USAGE);
  const id = values.dead ? undefined : taskIdArgument("retry", positionals);
  const config = await commandConfig(values, io, { database: true });
  const table = commandTable(config);
  const logger = commandLogger(values, config, io, "warn");
  return withStore(config.databaseUrl!, table, config.sources.databaseUrl, async (store) => {
    let changed: WakeupTarget[] = [];
    if (id) {
      changed = await store.retryTask(id);
      if (changed.length === 0) throw await notActionable(store, table, id, "retried", "dead or cancelled");
    } else {
      for (;;) {
        const batch = await store.retryDeadTasks({ name: values.name, limit: BATCH });
        changed.push(...batch);
        if (batch.length < BATCH) break;
      }
    }
    const woken = await wakeTasks(config, store, changed, logger);
    const what = id ? `task ${id}` : `${changed.length} dead task${changed.length === 1 ? "" : "s"}${values.name ? ` of ${values.name}` : ""}`;
    io.out(`Retried ${what}: pending again, ${wakeNote(woken)}.\n`);
    return EXIT_OK;
  });
}
