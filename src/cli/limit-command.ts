// `task-runner limit <queue> [--concurrency N|none] [--rate STARTS/MS|none] [--none]`: shows or sets a queue's limits
// in the database, where every worker's claims read them.

import { queueNameProblem } from "../names.js";
import { MAX_CONCURRENCY_LIMIT, type QueueDeclaration, type RateLimit } from "../store/queue-controls.js";
import { COMMON_HELP, commandConfig, commandTable, parseCommand, type CliIo } from "./command-context.js";
import { withStore } from "./database-session.js";
import { CliError, EXIT_OK, EXIT_USAGE } from "./exit-codes.js";

const limitHelp = `Usage: task-runner limit <queue>                      show the queue's limits
       task-runner limit <queue> --concurrency 5        at most 5 of its tasks running at once
       task-runner limit <queue> --rate 100/60000       at most 100 starts in any 60,000 ms
       task-runner limit <queue> --concurrency none     lift one limit (--rate none likewise)
       task-runner limit <queue> --none                 lift every limit of the queue

A queue's limits are stored in the database and hold for every worker on every host, whatever its own config
declares: a worker reads them at start and again within 5 s of a change, and until it has read a new limit it leaves
the queue's tasks to the workers that count them. A limit not named keeps its value. Tasks running over a lowered
limit finish; no new one starts until the queue is below it. A worker whose config declares queueLimits for the queue
writes them when it starts, replacing what is stored.

Options:
      --concurrency <n|none>  at most n tasks of the queue running at once (1 to ${MAX_CONCURRENCY_LIMIT})
      --rate <s/ms|none>      at most s starts in any window of ms milliseconds (s 1 to ${MAX_CONCURRENCY_LIMIT}, ms 1 to 86400000)
      --none                  lift both limits

${COMMON_HELP}`;

export async function limitCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand("limit", argv, {
    concurrency: { type: "string" },
    rate: { type: "string" },
    none: { type: "boolean" },
  });
  if (values.help) {
    io.out(limitHelp);
    return EXIT_OK;
  }
  if (positionals.length !== 1)
    throw new CliError(`\`task-runner limit\` takes one queue name, got ${positionals.length}. Run \`task-runner limit --help\`.`, EXIT_USAGE);
  const queue = positionals[0]!;
  const problem = queueNameProblem(queue);
  if (problem) throw new CliError(`queue ${JSON.stringify(queue)}: ${problem}.`, EXIT_USAGE);
  if (values.none && (values.concurrency !== undefined || values.rate !== undefined))
    throw new CliError("--none lifts every limit: leave out --concurrency and --rate, or use --concurrency none / --rate none for one.", EXIT_USAGE);
  const concurrency = values.none ? null : values.concurrency === undefined ? undefined : concurrencyOption(values.concurrency);
  const rate = values.none ? null : values.rate === undefined ? undefined : rateOption(values.rate);
  const config = await commandConfig(values, io, { database: true });
  return withStore(config.databaseUrl!, commandTable(config), config.sources.databaseUrl, async (store) => {
    const current = (await store.listQueues()).find((row) => row.queue === queue);
    const before: QueueDeclaration = { queue, concurrency: current?.concurrency ?? null, rateLimit: current?.rateLimit ?? null };
    if (concurrency === undefined && rate === undefined) {
      io.out(`Queue ${queue}: ${describe(before)}.\n`);
      return EXIT_OK;
    }
    const after: QueueDeclaration = {
      queue,
      concurrency: concurrency === undefined ? before.concurrency : concurrency,
      rateLimit: rate === undefined ? before.rateLimit : rate,
    };
    await store.syncQueues([after]);
    io.out(`Queue ${queue}: ${describe(after)}${describe(after) === describe(before) ? " (unchanged)" : ` (was: ${describe(before)})`}.\n`);
    return EXIT_OK;
  });
}

function describe(limits: QueueDeclaration): string {
  const parts = [
    limits.concurrency !== null && `at most ${limits.concurrency} running at once`,
    limits.rateLimit !== null && `at most ${limits.rateLimit.starts} starts per ${limits.rateLimit.perMs} ms`,
  ].filter(Boolean);
  return parts.length === 0 ? "no limits" : parts.join(", ");
}

function concurrencyOption(text: string): number | null {
  if (text === "none") return null;
  return integerOption("--concurrency", text, MAX_CONCURRENCY_LIMIT, "--concurrency 5, or --concurrency none to lift it");
}

function rateOption(text: string): RateLimit | null {
  if (text === "none") return null;
  const match = /^([^/]+)\/([^/]+)$/.exec(text);
  if (!match) throw new CliError(`--rate must be STARTS/MS (e.g. --rate 100/60000 for 100 starts a minute) or none, got ${JSON.stringify(text)}.`, EXIT_USAGE);
  return {
    starts: integerOption("--rate's starts", match[1]!, MAX_CONCURRENCY_LIMIT, "--rate 100/60000"),
    perMs: integerOption("--rate's window", match[2]!, 86_400_000, "--rate 100/60000"),
  };
}

function integerOption(option: string, text: string, max: number, example: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1 || value > max)
    throw new CliError(`${option} must be an integer from 1 to ${max}, got ${JSON.stringify(text)} (e.g. ${example}).`, EXIT_USAGE);
  return value;
}
