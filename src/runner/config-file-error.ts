// The error of a task-runner config file that is missing, cannot be imported, or holds something that cannot work.
// Its own module, so importing it does not load the config loader (and tsx with it).

import { TaskQueueConfigError } from "../errors.js";

/** A config file that is missing, cannot be imported, or holds something that cannot work. The message starts with the file. */
export class ConfigFileError extends TaskQueueConfigError {
  constructor(
    readonly file: string,
    problem: string,
  ) {
    super("config", problem);
    this.message = `${file}: ${problem}`;
  }
}
