// startTaskRunner(): the embedded workers of a self-hosted Next.js server (`next start` on a server or a container),
// started from instrumentation.ts's register() on the Node.js runtime. Started once per process whatever calls it
// (register() runs once per server, a route module may import it again, a dev server reloads): later calls get the
// runner already running. Not started while `next build` runs. SIGTERM and SIGINT stop it with the worker's drain, then
// exit; Next.js exits on those signals by itself unless NEXT_MANUAL_SIG_HANDLE=true leaves them to the app.

import { createCleaner, type Cleaner, type CleanerOptions } from "../cleaner/create-cleaner.js";
import type { TaskRegistry } from "../define-tasks.js";
import { createWorker, type Worker, type WorkerOptions } from "../worker/create-worker.js";
import { refuseEdgeRuntime } from "./cron-route.js";

/** Options of startTaskRunner(): the worker's options, and the cleaner's (false: no cleaner in this process). */
export interface TaskRunnerOptions<Tasks extends TaskRegistry = TaskRegistry> extends WorkerOptions<Tasks> {
  /** The cleaner beside the worker (any number may run: one leads). Default: one with the worker's connection options. */
  cleaner?: false | Omit<CleanerOptions<Tasks>, "tasks">;
  /** Stop on SIGTERM and SIGINT with the worker's drain, then exit the process. Default true. */
  stopOnSignals?: boolean;
}

export interface TaskRunner {
  worker: Worker;
  cleaner: Cleaner | undefined;
  /** Stops the worker (drain) and the cleaner. Idempotent. */
  stop(): Promise<void>;
}

const RUNNER = Symbol.for("prisma-task-queue.next.task-runner");
type Holder = { [RUNNER]?: Promise<TaskRunner> };

/** Starts the worker and the cleaner once per process; undefined during `next build`. */
export function startTaskRunner<Tasks extends TaskRegistry>(options: TaskRunnerOptions<Tasks>): Promise<TaskRunner | undefined> {
  refuseEdgeRuntime();
  if (process.env.NEXT_PHASE === "phase-production-build") return Promise.resolve(undefined);
  const holder = globalThis as Holder;
  holder[RUNNER] ??= start(options).catch((error: unknown) => {
    delete holder[RUNNER]; // a failed start can be tried again
    throw error;
  });
  return holder[RUNNER];
}

async function start<Tasks extends TaskRegistry>(options: TaskRunnerOptions<Tasks>): Promise<TaskRunner> {
  const { cleaner: cleanerOptions, stopOnSignals = true, ...workerOptions } = options;
  const worker = createWorker(workerOptions as WorkerOptions<Tasks>);
  const cleaner =
    cleanerOptions === false
      ? undefined
      : createCleaner({
          tasks: options.tasks,
          databaseUrl: options.databaseUrl,
          store: options.store,
          directUrl: options.directUrl,
          amqpUrl: options.amqpUrl,
          amqpPrefix: options.amqpPrefix,
          wakeups: options.wakeups,
          prisma: options.prisma,
          logger: options.logger,
          ...cleanerOptions,
        });
  await worker.start();
  try {
    await cleaner?.start();
  } catch (error) {
    await worker.stop();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  const runner: TaskRunner = {
    worker,
    cleaner,
    stop: () => {
      stopping ??= (async () => {
        await worker.stop();
        await cleaner?.stop();
        delete (globalThis as Holder)[RUNNER];
      })();
      return stopping;
    },
  };
  if (stopOnSignals) {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      process.once(signal, () => {
        void runner.stop().finally(() => process.exit(0));
      });
    }
  }
  return runner;
}
