// `task-runner pause <queue>` and `task-runner resume <queue>`: stops and restarts the claims of a queue's tasks, over
// every worker. A pause is a row in the database; a resume sends the wake-ups of the queue's due tasks.

import { queueNameProblem } from "../names.js";
import { COMMON_HELP, commandConfig, commandLogger, commandTable, parseCommand, type CliIo } from "./command-context.js";
import { withStore } from "./database-session.js";
import { CliError, EXIT_OK, EXIT_USAGE } from "./exit-codes.js";
import { wakeNote, wakeTasks } from "./wakeups.js";

const pauseHelp = `Usage: task-runner pause <queue>

Pauses a queue: from now on no worker claims its tasks. They stay pending, none is lost, and tasks already running
finish. The pause is stored in the database, so it holds for every worker on every host until \`task-runner resume\`.

${COMMON_HELP}`;

const resumeHelp = `Usage: task-runner resume <queue>

Resumes a paused queue: its due tasks are claimed again at once (their wake-ups are sent now; the rest by the
cleaner's next sweep).

${COMMON_HELP}`;

/** Wake-ups a resume sends itself; the cleaner sends the rest of a larger backlog, marked unpublished. */
const RESUME_WAKE_LIMIT = 10_000;

function queueArgument(command: string, positionals: string[]): string {
  if (positionals.length !== 1)
    throw new CliError(`\`task-runner ${command}\` takes one queue name, got ${positionals.length}. Run \`task-runner ${command} --help\`.`, EXIT_USAGE);
  const queue = positionals[0]!;
  const problem = queueNameProblem(queue);
  if (problem) throw new CliError(`queue ${JSON.stringify(queue)}: ${problem}.`, EXIT_USAGE);
  return queue;
}

export async function pauseCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand("pause", argv, {});
  if (values.help) {
    io.out(pauseHelp);
    return EXIT_OK;
  }
  const queue = queueArgument("pause", positionals);
  const config = await commandConfig(values, io, { database: true });
  return withStore(config.databaseUrl!, commandTable(config), config.sources.databaseUrl, async (store) => {
    const paused = await store.pauseQueue(queue);
    io.out(paused ? `Paused queue ${queue}: its tasks wait; running ones finish. Resume with: task-runner resume ${queue}\n` : `Queue ${queue} was paused already.\n`);
    return EXIT_OK;
  });
}

export async function resumeCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand("resume", argv, {});
  if (values.help) {
    io.out(resumeHelp);
    return EXIT_OK;
  }
  const queue = queueArgument("resume", positionals);
  const config = await commandConfig(values, io, { database: true });
  const logger = commandLogger(values, config, io, "warn");
  return withStore(config.databaseUrl!, commandTable(config), config.sources.databaseUrl, async (store) => {
    const { resumed, due } = await store.resumeQueue(queue, RESUME_WAKE_LIMIT);
    if (!resumed) {
      io.out(`Queue ${queue} was not paused.\n`);
      return EXIT_OK;
    }
    const woken = await wakeTasks(config, store, due, logger);
    io.out(`Resumed queue ${queue}: ${due.length === 0 ? "no due task waiting" : `${due.length} due task${due.length === 1 ? "" : "s"}, ${wakeNote(woken)}`}.\n`);
    return EXIT_OK;
  });
}
