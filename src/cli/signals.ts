// SIGTERM/SIGINT handling of the long-running commands: the first signal starts a graceful stop, the second asks for
// a faster one, a third exits at once (for a stop that hangs on an unreachable database).

import type { Logger } from "../logger.js";

interface SignalHandlers {
  logger: Logger;
  /** Graceful stop; the returned promise settles when everything is closed. */
  first(signal: NodeJS.Signals): Promise<void>;
  /** Called on the second signal while the graceful stop runs. */
  second(): void;
}

/**
 * Listens from now on (call it before starting anything, so a signal during start-up stops gracefully too). `done`
 * resolves once the first signal's stop is done (rejects if it failed); `remove()` stops listening.
 */
export function listenForSignals(handlers: SignalHandlers): { done: Promise<void>; remove(): void } {
  let onSignal: (signal: NodeJS.Signals) => void = () => {};
  const remove = () => {
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
  };
  const done = new Promise<void>((resolve, reject) => {
    let received = 0;
    onSignal = (signal: NodeJS.Signals) => {
      received += 1;
      if (received === 1) {
        handlers.first(signal).then(resolve, reject).finally(remove);
      } else if (received === 2) {
        handlers.second();
      } else {
        handlers.logger.error("third signal: exiting without finishing the stop", {});
        process.exit(130);
      }
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
  return { done, remove };
}
