#!/usr/bin/env node
// The `task-runner` bin: runs the dispatcher on the process's arguments and exits with its code.

import { runCli } from "./run-cli.js";

const code = await runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  stderrIsTTY: process.stderr.isTTY === true,
});
process.exitCode = code;
// Everything the command opened is closed by now; a handle left open by user code (a handler's stray timer, a client
// the config created but never exposed) must not keep a stopped runner alive.
setTimeout(() => process.exit(code), 2000).unref();
