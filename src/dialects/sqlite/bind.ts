import { TaskQueueInternalError } from "../../errors.js";
// Named parameters for the SQLite SQL units. Both drivers bind `?` by position only (the Prisma adapter binds an
// array, so `?1` cannot be reused), so a unit writes `{name}` and bind() turns each occurrence into a `?` with its
// value, compiling each text once.

const compiled = new Map<string, { sql: string; names: string[] }>();

/** `text` with every `{name}` made a positional `?`, and the values in that order. */
export function bind(text: string, values: Record<string, unknown>): [string, unknown[]] {
  let entry = compiled.get(text);
  if (!entry) {
    const names: string[] = [];
    const sql = text.replace(/\{(\w+)\}/g, (_match, name: string) => {
      names.push(name);
      return "?";
    });
    entry = { sql, names };
    if (compiled.size < 1000) compiled.set(text, entry);
  }
  const ordered = entry.names.map((name) => {
    if (!(name in values)) throw new TaskQueueInternalError(`SQL parameter {${name}} has no value`);
    return values[name];
  });
  return [entry.sql, ordered];
}
