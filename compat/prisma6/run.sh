#!/usr/bin/env bash
# Runs the Prisma 6.19 compat check: packs this repository, installs it beside Prisma 6.19, generates the client
# (PRISMA_*_BINARY point at any file: generate runs no engine), applies the SQL migrations to a fresh database,
# type-checks check.ts against the Prisma 6 client (the repository's tsc) and runs it; then the same on SQLite
# (check-sqlite.ts, a file of its own in a temporary folder).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
server="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/postgres}"
db="ptq_compat6_$$"
cd "$here"
rm -f prisma-task-queue-*.tgz
(cd "$root" && npm pack --silent --pack-destination "$here" >/dev/null)
npm install --no-audit --no-fund --silent --no-save ./prisma-task-queue-*.tgz
cat prisma/base.prisma "$root/prisma/task.prisma" > prisma/schema.prisma
PRISMA_SCHEMA_ENGINE_BINARY="$(command -v node)" PRISMA_QUERY_ENGINE_LIBRARY="$(command -v node)" \
  npx prisma generate --schema prisma/schema.prisma >/dev/null
url="$(node -e 'const u=new URL(process.argv[1]); u.pathname="/"+process.argv[2]; console.log(u.toString())' "$server" "$db")"
psql "$server" -q -c "CREATE DATABASE \"$db\""
trap 'psql "$server" -q -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)"' EXIT
# Every shipped migration, oldest first (the glob sorts by the timestamp that starts each folder's name).
migrations=()
for dir in "$root"/prisma/migrations/[0-9]*_*/; do migrations+=(-f "${dir}migration.sql"); done
psql "$url" -q -v ON_ERROR_STOP=1 "${migrations[@]}" -f "$root/test/sql/business.sql"
cat prisma-sqlite/base.prisma "$root/prisma/sqlite/task.prisma" > prisma-sqlite/schema.prisma
PRISMA_SCHEMA_ENGINE_BINARY="$(command -v node)" PRISMA_QUERY_ENGINE_LIBRARY="$(command -v node)" \
  npx prisma generate --schema prisma-sqlite/schema.prisma >/dev/null
sqlite_dir="$(mktemp -d)"
trap 'psql "$server" -q -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)"; rm -rf "$sqlite_dir"' EXIT
node -e '
const Database = require("better-sqlite3");
const { readdirSync, readFileSync } = require("node:fs");
const [file, migrations, business] = process.argv.slice(1);
const db = new Database(file);
for (const name of readdirSync(migrations).filter((n) => /^\d+_/.test(n)).sort()) db.exec(readFileSync(`${migrations}/${name}/migration.sql`, "utf8"));
db.exec(readFileSync(business, "utf8"));
db.close();
' "$sqlite_dir/app.db" "$root/prisma/sqlite/migrations" "$root/test/sql/business-sqlite.sql"
"$root/node_modules/.bin/tsc" --noEmit -p "$here"
DATABASE_URL="$url" npx tsx check.ts
SQLITE_FILE="$sqlite_dir/app.db" npx tsx check-sqlite.ts
