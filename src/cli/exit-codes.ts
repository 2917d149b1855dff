// The exit codes of `task-runner`, for scripts, and the error that carries one up to the dispatcher.

export const EXIT_OK = 0;
/** Something failed at run time: database or broker unreachable, a query failed. */
export const EXIT_FAILURE = 1;
/** The command line or the config file is wrong. */
export const EXIT_USAGE = 2;
/**
 * The task does not exist, or is not in a state the action allows; for `migrate`, the migration history is in a state
 * it refuses to build on (a half-applied or edited migration, a table created outside Prisma Migrate).
 */
export const EXIT_NOT_FOUND = 3;

/** An error the dispatcher prints as one line (no stack unless --verbose) and turns into `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "CliError";
  }
}
