// The tables a migration script creates and the columns they have after it, read from the script's text: what
// `--baseline` compares with the tables the database already has.
//
// It reads the statements that make columns (CREATE TABLE, ALTER TABLE … ADD/DROP/RENAME COLUMN, DROP TABLE) in either
// quoting style ("x" or `x`) and ignores the rest; it runs nothing.

/** Columns per table, in the order they were created. */
export type TableShapes = Map<string, string[]>;

/** What one script does to the shapes: the tables it creates, and the shapes after it. */
interface ScriptEffect {
  creates: string[];
  after: TableShapes;
}

/** True for a migration of prisma-task-queue: its text opens with the package's marker comment. */
export function isTaskQueueMigration(script: string): boolean {
  return /^\s*--\s*prisma-task-queue\b/.test(script);
}

/** Applies `script` to a copy of `before`. */
export function scriptEffect(script: string, before: TableShapes = new Map()): ScriptEffect {
  const after: TableShapes = new Map([...before].map(([table, columns]) => [table, [...columns]]));
  const creates: string[] = [];
  for (const statement of statements(tokens(script))) {
    const words = statement.map((token) => (token.kind === "word" ? token.text.toUpperCase() : ""));
    if (words[0] === "CREATE" && words[1] === "TABLE") {
      const at = words[2] === "IF" ? 5 : 2;
      const [table, next] = qualifiedName(statement, at);
      if (table === undefined || statement[next]?.text !== "(") continue;
      creates.push(table);
      after.set(
        table,
        definitions(statement, next).flatMap((definition) => columnOf(definition) ?? []),
      );
    } else if (words[0] === "ALTER" && words[1] === "TABLE") {
      const at = words[2] === "ONLY" ? 3 : words[2] === "IF" ? 4 : 2;
      const [table, next] = qualifiedName(statement, at);
      const columns = table === undefined ? undefined : after.get(table);
      if (columns === undefined) continue;
      for (const clause of split(statement.slice(next), 0)) alterColumns(clause, columns);
    } else if (words[0] === "DROP" && words[1] === "TABLE") {
      const [table] = qualifiedName(statement, words[2] === "IF" ? 4 : 2);
      if (table !== undefined) after.delete(table);
    }
  }
  return { creates, after };
}

interface Token {
  kind: "word" | "name" | "string" | "punct";
  text: string;
}

const NOT_A_COLUMN = new Set(["CONSTRAINT", "PRIMARY", "UNIQUE", "INDEX", "KEY", "CHECK", "FOREIGN", "FULLTEXT", "SPATIAL", "EXCLUDE", "LIKE"]);

/** Words, quoted names, strings and punctuation; comments and blanks dropped. */
function tokens(script: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < script.length) {
    const c = script[i]!;
    if (/\s/.test(c)) i += 1;
    else if (script.startsWith("--", i)) i = lineEnd(script, i);
    else if (script.startsWith("/*", i)) i = script.indexOf("*/", i + 2) < 0 ? script.length : script.indexOf("*/", i + 2) + 2;
    else if (c === '"' || c === "`" || c === "'") {
      const [text, end] = quoted(script, i, c);
      out.push({ kind: c === "'" ? "string" : "name", text });
      i = end;
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(script.slice(i))![0];
      out.push({ kind: "word", text: word });
      i += word.length;
    } else {
      out.push({ kind: "punct", text: c });
      i += 1;
    }
  }
  return out;
}

function lineEnd(script: string, from: number): number {
  const end = script.indexOf("\n", from);
  return end < 0 ? script.length : end + 1;
}

/** The text between quotes starting at `from` (a doubled quote stands for one), and the index after the closing one. */
function quoted(script: string, from: number, quote: string): [string, number] {
  let text = "";
  let i = from + 1;
  while (i < script.length) {
    if (script[i] === quote) {
      if (script[i + 1] !== quote) return [text, i + 1];
      text += quote;
      i += 2;
    } else {
      text += script[i];
      i += 1;
    }
  }
  return [text, i];
}

function statements(all: Token[]): Token[][] {
  return split(all, 0, ";").filter((statement) => statement.length > 0);
}

/** Splits at `separator` tokens found at parenthesis depth `depth` (relative to the start). */
function split(list: Token[], depth: number, separator = ","): Token[][] {
  const parts: Token[][] = [[]];
  let level = 0;
  for (const token of list) {
    if (token.kind === "punct" && token.text === ")") level -= 1;
    if (token.kind === "punct" && token.text === separator && level === depth) parts.push([]);
    else parts[parts.length - 1]!.push(token);
    if (token.kind === "punct" && token.text === "(") level += 1;
  }
  return parts;
}

/** A table name at `at` (the last part of schema.table), and the index after it. */
function qualifiedName(statement: Token[], at: number): [string | undefined, number] {
  let i = at;
  let name = nameOf(statement[i]);
  while (name !== undefined && statement[i + 1]?.text === "." && nameOf(statement[i + 2]) !== undefined) {
    i += 2;
    name = nameOf(statement[i]);
  }
  return [name, i + 1];
}

/** The name a token stands for: a quoted name as written, an unquoted word folded to lower case (as PostgreSQL does). */
function nameOf(token: Token | undefined): string | undefined {
  if (token?.kind === "name") return token.text;
  if (token?.kind === "word") return token.text.toLowerCase();
  return undefined;
}

/** The comma-separated definitions inside the parentheses opening at `open`. */
function definitions(statement: Token[], open: number): Token[][] {
  let level = 0;
  for (let i = open; i < statement.length; i += 1) {
    if (statement[i]!.text === "(" && statement[i]!.kind === "punct") level += 1;
    if (statement[i]!.text === ")" && statement[i]!.kind === "punct" && --level === 0) return split(statement.slice(open + 1, i), 0);
  }
  return [];
}

function columnOf(definition: Token[]): string | undefined {
  const first = definition[0];
  if (first?.kind === "word" && NOT_A_COLUMN.has(first.text.toUpperCase())) return undefined;
  return nameOf(first);
}

/** Applies one ALTER TABLE clause (ADD/DROP/RENAME COLUMN) to `columns`. */
function alterColumns(clause: Token[], columns: string[]): void {
  const word = (i: number) => (clause[i]?.kind === "word" ? clause[i].text.toUpperCase() : "");
  let i = 1;
  if (word(0) === "ADD" || word(0) === "DROP") {
    if (NOT_A_COLUMN.has(word(1))) return;
    if (word(i) === "COLUMN") i += 1;
    if (word(i) === "IF") i += word(i + 1) === "NOT" ? 3 : 2;
    const column = nameOf(clause[i]);
    if (column === undefined) return;
    if (word(0) === "ADD" && !columns.includes(column)) columns.push(column);
    if (word(0) === "DROP" && columns.includes(column)) columns.splice(columns.indexOf(column), 1);
  } else if (word(0) === "RENAME" && word(1) === "COLUMN" && word(3) === "TO") {
    const [from, to] = [nameOf(clause[2]), nameOf(clause[4])];
    if (from !== undefined && to !== undefined && columns.includes(from)) columns[columns.indexOf(from)] = to;
  }
}
