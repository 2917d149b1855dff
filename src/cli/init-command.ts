// `task-runner init`: adds the task models and their SQL migration to the user's Prisma project, single-file or
// multi-file schema, in the dialect of its datasource provider, under another model/table name when the app already
// has a Task, and says what it did and what comes next (init-next-steps.ts).

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { DIALECTS, dialectForProvider, notificationDatabases, supportedProviders } from "../dialects/index.js";
import type { WakeupsWithoutBroker } from "../store/dialect.js";
import { taskMigrationSources, taskModelSource } from "../package-files.js";
import { appPrefix } from "./app-prefix.js";
import { locateSchema, migrationsBeside } from "./schema-location.js";
import { findWakeups, nextSteps } from "./init-next-steps.js";

interface CommandIo {
  cwd: string;
  out: (text: string) => void;
  err: (text: string) => void;
  /** The environment: AMQP_URL set there means RabbitMQ. Default: none. */
  env?: NodeJS.ProcessEnv;
}

/** What each dialect does without a broker, for the help: "NOTIFY on PostgreSQL, in-process and polling on SQLite, …". */
function withoutBroker(): string {
  const words: Record<WakeupsWithoutBroker, string> = { notify: "NOTIFY", "in-process": "in-process and polling", polling: "polling" };
  return DIALECTS.map((dialect) => `${words[dialect.capabilities.wakeupsWithoutBroker]} on ${dialect.displayName}`).join(", ");
}

const HELP = `Usage: task-runner init [options]

Adds the prisma-task-queue model to your Prisma schema and writes its SQL migration, for the database your
datasource's provider names.

Options:
  --schema <path>      schema file or multi-file schema folder (default: prisma/schema.prisma, else prisma/schema/)
  --model <Name>       model name, when your app already has a model named Task (default: Task)
  --table <name>       table name (default: tasks, or the model name in snake_case plural when --model is given)
  --migrations <dir>   migrations folder (default: "migrations" beside the schema)
  --wakeups <w>        how workers will be woken, for the printed setup: rabbitmq, notify (${notificationDatabases()}) or polling
                       (default: rabbitmq when AMQP_URL is set in the environment or .env, else the database's own:
                       ${withoutBroker()})
  --prefix <name>      RabbitMQ prefix of this app's exchanges and queues (or NOTIFY channel prefix) for the printed
                       setup (default: from package.json's name, so apps sharing a broker do not collide; the
                       library's default is "task_queue")
  --dry-run            print what would change, write nothing
  -h, --help           show this help
`;

const MARKER = "prisma-task-queue";

/** Runs `init`; returns the exit code (0 done or nothing to do, 2 usage or a conflict the user must resolve). */
export async function initCommand(argv: string[], io: CommandIo): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        schema: { type: "string" },
        model: { type: "string" },
        table: { type: "string" },
        migrations: { type: "string" },
        prefix: { type: "string" },
        wakeups: { type: "string" },
        "dry-run": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }));
  } catch (error) {
    io.err(`task-runner init: ${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (values.help) {
    io.out(HELP);
    return 0;
  }
  const model = values.model ?? "Task";
  if (!/^[A-Z][A-Za-z0-9_]*$/.test(model)) {
    io.err(`task-runner init: --model ${JSON.stringify(model)} is not a Prisma model name; use PascalCase letters and digits, e.g. QueueTask.\n`);
    return 2;
  }
  const table = values.table ?? (values.model ? `${snakeCase(model)}s` : "tasks");
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(table)) {
    io.err(`task-runner init: --table ${JSON.stringify(table)} is not a plain lower-case identifier, e.g. queue_tasks.\n`);
    return 2;
  }

  const broker = appPrefix(io.cwd, values.prefix);
  if (!broker) {
    io.err(
      `task-runner init: --prefix ${JSON.stringify(values.prefix)} cannot name RabbitMQ exchanges and queues; use 1-100 letters, digits, "_", "." or "-", starting with a letter or digit, e.g. shop_tasks.\n`,
    );
    return 2;
  }

  const schema = locateSchema(io.cwd, values.schema);
  if (!schema) {
    io.err(
      `task-runner init: no Prisma schema found${values.schema ? ` at ${values.schema}` : " (looked for prisma/schema.prisma, prisma/schema/, schema.prisma)"}. ` +
        `Run it in your project's root or pass --schema <file or folder>.\n`,
    );
    return 2;
  }
  const files = schema.kind === "file" ? [schema.path] : prismaFilesIn(schema.path);
  const existing = files.map((file) => ({ file, text: readFileSync(file, "utf8") }));
  const provider = datasourceProvider(existing.map(({ text }) => text));
  const dialect = provider === undefined ? undefined : dialectForProvider(provider);
  if (!dialect) {
    io.err(
      `task-runner init: ${provider === undefined ? "found no datasource with a provider in the schema" : `the datasource provider "${provider}" is not supported`}. ` +
        `Supported: ${supportedProviders()}.\n`,
    );
    return 2;
  }
  const found = findWakeups(dialect, values.wakeups, io.env ?? {}, io.cwd);
  if (typeof found === "string") {
    io.err(`task-runner init: ${found}\n`);
    return 2;
  }
  const clash = existing.find(({ text }) => new RegExp(`^\\s*model\\s+${model}\\s*\\{`, "m").test(text));
  if (clash) {
    if (clash.text.includes(MARKER)) {
      const shipped = taskModelSource(dialect.schemaFiles);
      const missing = [
        ...missingFields(shipped, clash.text, model),
        ...missingModels(
          shipped,
          existing.map(({ text }) => text),
          model,
        ),
      ];
      io.out(
        missing.length === 0
          ? `Nothing to do: ${relative(io.cwd, clash.file)} already has the prisma-task-queue model ${model}.\n`
          : `${relative(io.cwd, clash.file)} already has the prisma-task-queue model ${model}, from an earlier version: it lacks ` +
              `${missing.join(", ")}. Add them from the package's model and copy its newer migrations into your migrations ` +
              `folder (see docs/prisma-migrate.md in prisma-task-queue); init writes nothing over an existing model.\n`,
      );
      return 0;
    }
    io.err(
      `task-runner init: ${relative(io.cwd, clash.file)} already has a model named ${model}. Choose another name:\n` +
        `  npx task-runner init --model QueueTask --table queue_tasks\n` +
        `and pass the same names to the extension: taskQueue({ tasks, model: "QueueTask", table: "queue_tasks" }).\n`,
    );
    return 2;
  }

  const modelText = renameModel(taskModelSource(dialect.schemaFiles), model, table);
  const sql = renameTable(
    taskMigrationSources(dialect.schemaFiles)
      .map((migration) => migration.sql)
      .join("\n"),
    table,
  );
  const migrationsDir = values.migrations ? resolve(io.cwd, values.migrations) : migrationsBeside(schema);
  const migrationDir = join(migrationsDir, `${timestamp()}_${table}_task_queue`);
  const modelTarget = schema.kind === "file" ? schema.path : join(schema.path, `${snakeCase(model)}.prisma`);
  const dryRun = values["dry-run"] ?? false;

  if (!dryRun) {
    if (schema.kind === "file") writeFileSync(schema.path, `${existing[0]!.text.replace(/\s*$/, "\n")}\n${modelText}`);
    else writeFileSync(modelTarget, modelText);
    mkdirSync(migrationDir, { recursive: true });
    writeFileSync(join(migrationDir, "migration.sql"), sql);
  }
  const verb = dryRun ? "Would" : "Did";
  const names = `${model === "Task" ? "" : `, model: "${model}"`}${table === "tasks" ? "" : `, table: "${table}"`}`;
  io.out(
    `${verb} add ${modelsAdded(modelText)} to ${relative(io.cwd, modelTarget)}\n` +
      `${verb} write the migration ${relative(io.cwd, join(migrationDir, "migration.sql"))}\n\n` +
      nextSteps({ found, prefix: { ...broker, given: values.prefix !== undefined }, names }),
  );
  return 0;
}

/** The models `text` holds, with their tables: `model Task (table "tasks")`, or several: "A, B and C". */
function modelsAdded(text: string): string {
  const models = [...text.matchAll(/^model (\w+) \{[^}]*?@@map\("([^"]+)"\)/gms)].map((match) => `${match[1]} (table "${match[2]}")`);
  const listed = models.length === 1 ? models[0]! : `${models.slice(0, -1).join(", ")} and ${models[models.length - 1]}`;
  return `${models.length === 1 ? "model" : "models"} ${listed}`;
}

function prismaFilesIn(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".prisma") && !name.split(/[\\/]/).includes("migrations"))
    .map((name) => join(dir, name));
}

function renameModel(source: string, model: string, table: string): string {
  return source
    .replace(/^model Task \{/m, `model ${model} {`)
    .replace('@@map("tasks")', `@@map("${table}")`)
    .replace(/^model TaskLeader \{/m, `model ${model}Leader {`)
    .replace('@@map("tasks_leaders")', `@@map("${table}_leaders")`)
    .replace(/^model TaskSchedule \{/m, `model ${model}Schedule {`)
    .replace('@@map("tasks_schedules")', `@@map("${table}_schedules")`)
    .replace(/^model TaskScheduleSlot \{/m, `model ${model}ScheduleSlot {`)
    .replace('@@map("tasks_schedule_slots")', `@@map("${table}_schedule_slots")`)
    .replace(/^model TaskQueue \{/m, `model ${model}Queue {`)
    .replace('@@map("tasks_queues")', `@@map("${table}_queues")`)
    .replace(/^model TaskQueueStart \{/m, `model ${model}QueueStart {`)
    .replace('@@map("tasks_queue_starts")', `@@map("${table}_queue_starts")`)
    .replace(/^model TaskTally \{/m, `model ${model}Tally {`)
    .replace('@@map("tasks_tallies")', `@@map("${table}_tallies")`)
    .replace(/^model TaskStep \{/m, `model ${model}Step {`)
    .replace('@@map("tasks_steps")', `@@map("${table}_steps")`)
    .replace(/^model TaskEvent \{/m, `model ${model}Event {`)
    .replace('@@map("tasks_events")', `@@map("${table}_events")`);
}

/** Renames the table and its indexes in either quoting style ("tasks" or `tasks`). */
function renameTable(source: string, table: string): string {
  return source.replace(/(["`])tasks(["`_])/g, (_match, open: string, close: string) => `${open}${table}${close}`);
}

/** The provider of the schema's datasource block: `datasource db { provider = "postgresql" }`. */
function datasourceProvider(texts: readonly string[]): string | undefined {
  for (const text of texts) {
    const block = /^\s*datasource\s+\w+\s*\{([^}]*)\}/m.exec(text);
    const provider = block && /^\s*provider\s*=\s*"([^"]+)"/m.exec(block[1]!);
    if (provider) return provider[1];
  }
  return undefined;
}

/** Fields of the shipped Task model that the app's copy of it (model `model` in `text`) does not have. */
function missingFields(shipped: string, text: string, model: string): string[] {
  const fieldsOf = (source: string, name: string) => {
    const block = new RegExp(`^\\s*model\\s+${name}\\s*\\{([^}]*)\\}`, "m").exec(source)?.[1] ?? "";
    return [...block.matchAll(/^\s*([a-z]\w*)\s+[A-Z]/gm)].map((match) => match[1]!);
  };
  const present = new Set(fieldsOf(text, model));
  return fieldsOf(shipped, "Task").filter((field) => !present.has(field));
}

/** The shipped models beside Task (TaskSchedule, …) that no file of the app's schema has, as `model QueueTaskSchedule`. */
function missingModels(shipped: string, texts: readonly string[], model: string): string[] {
  const companions = [...shipped.matchAll(/^model Task(\w+) \{/gm)].map((match) => `${model}${match[1]}`);
  return companions.filter((name) => !texts.some((text) => new RegExp(`^\\s*model\\s+${name}\\s*\\{`, "m").test(text))).map((name) => `model ${name}`);
}

function snakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

function timestamp(): string {
  return new Date().toISOString().replace(/[-:T]/g, "").slice(0, 14);
}
