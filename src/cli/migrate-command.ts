// `task-runner migrate`: applies the app's Prisma migrations that the database lacks and records them in Prisma
// Migrate's `_prisma_migrations`, without Prisma's engine; one line per migration, or one saying it is up to date.

import { relative, resolve } from "node:path";
import { dialectForUrl } from "../dialects/index.js";
import { TaskQueueError, type TaskQueueErrorCode } from "../errors.js";
import type { MigrationLedger } from "../migrate/migration-ledger.js";
import { markRolledBack, runMigrations, type MigrationStep } from "../migrate/run-migrations.js";
import { COMMON_HELP, commandConfig, commandTable, parseCommand, type CliIo } from "./command-context.js";
import { problemFailure } from "./database-errors.js";
import { CliError, EXIT_FAILURE, EXIT_NOT_FOUND, EXIT_OK, EXIT_USAGE } from "./exit-codes.js";
import { locateSchema, migrationsBeside } from "./schema-location.js";

const migrateHelp = `Usage: task-runner migrate [--dry-run] [--baseline] [--migrations <dir>]
       task-runner migrate --rolled-back <migration>

Applies the migrations of your Prisma migrations folder that the database lacks, in name order, as
\`prisma migrate deploy\` does, and records each in Prisma Migrate's _prisma_migrations table as Prisma does, so
either command can run after the other. It needs no Prisma engine: the SQL runs through the driver prisma-task-queue
uses (pg, better-sqlite3, mariadb). On PostgreSQL and SQLite a migration runs in one transaction with its record; on
MySQL and MariaDB DDL commits statement by statement, so a failing migration stays half-applied, recorded as started.

It changes nothing and exits 3 when a failed run left a migration started but not finished, when an applied
migration's migration.sql changed since, or when a table that a pending task-queue migration creates already exists
without a record (its SQL was run by hand, or an older setup made it: see --baseline). A failing migration exits 1.
--table and --schema are not used: migrations name their tables and run, as with Prisma Migrate, in the schema of
the URL's ?schema= parameter (else the connection's search_path).

Options:
      --migrations <dir>   the migrations folder (default: "migrations" beside the Prisma schema, found as init finds
                           it: prisma/schema.prisma, prisma/schema/, schema.prisma)
      --dry-run            list what would be applied (and recorded, with --baseline); change nothing
      --baseline           record the pending task-queue migrations whose tables already exist, with their columns,
                           as applied without running them; then apply the rest
      --rolled-back <name> mark the started-but-unfinished record of a failed migration rolled back, once you have
                           undone what it applied, so that the next run applies it again

${COMMON_HELP}`;

/** Refusals about the migration history: the database is not in a state migrate builds on. */
const REFUSALS = new Set<TaskQueueErrorCode>([
  "MIGRATION_HALF_APPLIED",
  "MIGRATION_EDITED",
  "MIGRATION_FOREIGN_TABLE",
  "MIGRATION_BASELINE_MISMATCH",
  "MIGRATION_NOT_FAILED",
]);

export async function migrateCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand("migrate", argv, {
    migrations: { type: "string" },
    "dry-run": { type: "boolean" },
    baseline: { type: "boolean" },
    "rolled-back": { type: "string" },
  });
  if (values.help) {
    io.out(migrateHelp);
    return EXIT_OK;
  }
  if (positionals.length > 0)
    throw new CliError(`\`task-runner migrate\` takes no arguments, got ${JSON.stringify(positionals.join(" "))}. Run \`task-runner migrate --help\`.`, EXIT_USAGE);
  const rolledBack = values["rolled-back"];
  if (rolledBack !== undefined && (values["dry-run"] || values.baseline)) {
    throw new CliError("--rolled-back marks one record and applies nothing: run it without --dry-run and --baseline.", EXIT_USAGE);
  }
  const config = await commandConfig(values, io, { database: true });
  const dir = migrationsDir(io.cwd, values.migrations);
  // Prisma Migrate's lock is a session lock: behind PgBouncer in transaction mode, migrations go through directUrl.
  const url = config.directUrl ?? config.databaseUrl!;
  const ledger = dialectForUrl(url).openMigrationLedger(url, { connectTimeoutMs: 10_000 });
  try {
    if (rolledBack !== undefined) {
      await markRolledBack(ledger, rolledBack);
      io.out(`Marked ${rolledBack} rolled back: the next \`task-runner migrate\` applies it again.\n`);
      return EXIT_OK;
    }
    const shown = relative(io.cwd, dir) || ".";
    const result = await runMigrations(ledger, {
      dir,
      dryRun: values["dry-run"],
      baseline: values.baseline,
      onStep: (step) => io.out(`${stepLine(step)}\n`),
    });
    if (values.baseline && result.baselined.length === 0) io.out("--baseline: no table of a pending migration exists yet, so none was recorded without running.\n");
    if (result.baselined.length + result.applied.length === 0) {
      io.out(
        result.total === 0
          ? `The database is up to date: ${shown} holds no migrations.\n`
          : result.total === 1
            ? `The database is up to date: the one migration in ${shown} is applied.\n`
            : `The database is up to date: all ${result.total} migrations in ${shown} are applied.\n`,
      );
    }
    return EXIT_OK;
  } catch (error) {
    throw failure(error, ledger, url, config.sources.databaseUrl, commandTable(config));
  } finally {
    await ledger.close();
  }
}

function stepLine(step: MigrationStep): string {
  if (step.action === "apply") return `${step.done ? "Applied" : "Would apply"} ${step.name}`;
  return `${step.done ? "Recorded" : "Would record"} ${step.name} as applied without running it: its tables already exist with its columns`;
}

/** The folder given, or the one beside the app's Prisma schema; a usage error when neither is there to find. */
function migrationsDir(cwd: string, given: string | undefined): string {
  if (given !== undefined) return resolve(cwd, given);
  const schema = locateSchema(cwd, undefined);
  if (!schema) {
    throw new CliError(
      `no Prisma schema in ${cwd} (looked for prisma/schema.prisma, prisma/schema/, schema.prisma) to find the migrations folder beside. ` +
        `Run it in your project's root or pass --migrations <dir>.`,
      EXIT_USAGE,
    );
  }
  return migrationsBeside(schema);
}

/** The CliError for what stopped the run: a refusal (exit 3), a bad folder (2), a failed migration or the database (1). */
function failure(error: unknown, ledger: MigrationLedger, url: string, source: string | undefined, table: ReturnType<typeof commandTable>): unknown {
  if (error instanceof CliError) return error;
  if (error instanceof TaskQueueError) {
    const exitCode = REFUSALS.has(error.code)
      ? EXIT_NOT_FOUND
      : error.code === "MIGRATIONS_FOLDER_INVALID" || error.code === "TASK_QUEUE_CONFIG_INVALID"
        ? EXIT_USAGE
        : EXIT_FAILURE;
    return new CliError(error.message, exitCode, { cause: error });
  }
  return problemFailure(ledger.classify(error), url, table, ledger.displayName, source, error);
}
