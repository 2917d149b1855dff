#!/usr/bin/env bash
# Follows the README's "Quick start" as a new user would, in a fresh Prisma 7 app per database (PostgreSQL, SQLite,
# MariaDB; no RabbitMQ): packs this repository, installs it with that database's install line, runs `task-runner init`
# and `task-runner migrate` (beside an earlier migration of the app's own), `prisma generate`, writes the README's code
# blocks, runs the workers in the app's process and enqueues, then `task-runner start` in another process and enqueues
# again, and waits each time for the handler's write. Usage: run.sh [postgresql|sqlite|mariadb ...] (default: all three).
# Ends with "README setup: PASS" when every database passed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
pg_server="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/postgres}"
mysql_server="${MYSQL_URL:-mysql://root@127.0.0.1:3306/mysql}"
work="$(mktemp -d)"
runner=""
databases=()
cleanup() {
  if [ -n "$runner" ]; then kill -TERM "$runner" 2>/dev/null || true; wait "$runner" 2>/dev/null || true; fi
  psql "$pg_server" -q -c "DROP DATABASE IF EXISTS \"ptq_readme_$$\" WITH (FORCE)" >/dev/null 2>&1 || true
  node "$here/mysql-database.mjs" drop "$mysql_server" "ptq_readme_$$" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
version() { node -p "require('$root/node_modules/$1/package.json').version"; }
with_url() { node -e 'const u=new URL(process.argv[1]); u.pathname="/"+process.argv[2]; console.log(u.toString())' "$1" "$2"; }
fail() { echo "README setup on $label: FAIL ($1)"; exit 1; }

(cd "$root" && npm pack --silent --pack-destination "$work" >/dev/null)
tarball="$(ls "$work"/prisma-task-queue-*.tgz)"

setup() { # postgresql | sqlite | mariadb
  local app="$work/$1" provider install migration url
  case "$1" in
    postgresql)
      label=PostgreSQL; provider=postgresql
      install=(pg@"$(version pg)" @prisma/adapter-pg@"$(version @prisma/adapter-pg)")
      migration='CREATE TABLE "reports" ("id" TEXT NOT NULL, "status" TEXT NOT NULL DEFAULT '"'pending'"', CONSTRAINT "reports_pkey" PRIMARY KEY ("id"));'
      url="$(with_url "$pg_server" "ptq_readme_$$")"
      psql "$pg_server" -q -c "CREATE DATABASE \"ptq_readme_$$\"" ;;
    sqlite)
      label=SQLite; provider=sqlite
      install=(better-sqlite3@"$(version better-sqlite3)" @prisma/adapter-better-sqlite3@"$(version @prisma/adapter-better-sqlite3)")
      migration='CREATE TABLE "reports" ("id" TEXT NOT NULL PRIMARY KEY, "status" TEXT NOT NULL DEFAULT '"'pending'"');'
      url="file:./dev.db" ;;
    mariadb)
      label=MySQL; provider=mysql
      install=(mariadb@"$(version mariadb)" @prisma/adapter-mariadb@"$(version @prisma/adapter-mariadb)")
      migration='CREATE TABLE `reports` (`id` VARCHAR(191) NOT NULL, `status` VARCHAR(191) NOT NULL DEFAULT '"'pending'"', PRIMARY KEY (`id`)) DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;'
      url="$(with_url "$mysql_server" "ptq_readme_$$")"
      node "$here/mysql-database.mjs" create "$mysql_server" "ptq_readme_$$" ;;
    *) echo "run.sh: unknown database $1 (use postgresql, sqlite or mariadb)" >&2; exit 2 ;;
  esac
  mkdir -p "$app/prisma/migrations/20260101000000_reports"
  cd "$app"
  echo '{ "name": "readme-app", "private": true, "type": "module" }' > package.json
  cat > prisma/schema.prisma <<PRISMA
generator client {
  provider = "prisma-client"
  output   = "../src/generated/prisma"
}

datasource db {
  provider = "$provider"
}

model Report {
  id     String @id @default(uuid())
  status String @default("pending")

  @@map("reports")
}
PRISMA
  # The app's own earlier migration, as `prisma migrate dev` would have left it.
  echo "$migration" > prisma/migrations/20260101000000_reports/migration.sql
  printf 'provider = "%s"\n' "$provider" > prisma/migrations/migration_lock.toml
  # Step 1: the README's install line for this database (the tarball stands for the published package), with the
  # app's own Prisma 7 packages.
  npm install --no-audit --no-fund --silent "$tarball" zod@"$(version zod)" tsx@"$(version tsx)" "${install[@]}" \
    @prisma/client@"$(version @prisma/client)" prisma@"$(version prisma)"
  for package in pg amqplib better-sqlite3 mariadb hono; do
    if [ -d "node_modules/$package" ] && ! printf '%s\n' "${install[@]}" | grep -q "^$package@"; then fail "the install line brought $package, which this setup does not use"; fi
  done
  export DATABASE_URL="$url"
  unset AMQP_URL
  # Step 2.
  npx task-runner init > init.log
  grep -q "Next:" init.log || { cat init.log; fail "init printed no next steps"; }
  npx task-runner migrate > migrate.log 2>&1 || { cat migrate.log; fail "task-runner migrate failed"; }
  PRISMA_SCHEMA_ENGINE_BINARY="$(command -v node)" npx prisma generate >/dev/null
  # Steps 3 to 6, from the README's code blocks.
  node "$here/extract-blocks.mjs" "$root/README.md" "$app" "$label"
  cat > src/count-sent.ts <<'TS'
import { prisma } from "./db";
console.log(await prisma.report.count({ where: { status: "sent" } }));
await prisma.$taskQueue.close();
await prisma.$disconnect();
TS
  node "$root/node_modules/typescript/bin/tsc" --noEmit --strict --module esnext --moduleResolution bundler --target es2022 --skipLibCheck src/*.ts task-runner.config.ts \
    || fail "the README's code does not type-check"
  # The workers in the app's own process.
  timeout 120 npx tsx src/in-process.ts > in-process.log 2>&1 || { cat in-process.log; fail "the in-process run failed or did not exit"; }
  [ "$(count_sent)" = 1 ] || { cat in-process.log; fail "the in-process worker did not run the task within 10 s"; }
  # `task-runner start` in a process of its own.
  node_modules/.bin/task-runner start > runner.log 2>&1 &
  runner=$!
  for _ in $(seq 1 100); do grep -q 'worker started' runner.log && break; sleep 0.1; done
  timeout 60 npx tsx src/enqueue.ts || fail "the enqueue script failed or did not exit"
  for _ in $(seq 1 30); do [ "$(count_sent)" = 2 ] && break; done
  npx task-runner status > status.log 2>&1 || { cat status.log; fail "task-runner status failed"; }
  kill -TERM "$runner"; wait "$runner" || { cat runner.log; fail "task-runner start did not stop cleanly on SIGTERM"; }
  runner=""
  [ "$(count_sent)" = 2 ] || { cat runner.log status.log; fail "task-runner start did not run the task within 10 s"; }
  if [ "$1" = postgresql ]; then grep -q "PostgreSQL NOTIFY" status.log || { cat status.log; fail "status does not name the NOTIFY transport"; }; fi
  if grep -q '"level":"warn"\|"level":"error"' runner.log in-process.log; then cat runner.log in-process.log; fail "a warning or error was logged in the default setup"; fi
  echo "README setup on $label: PASS (install, init, migrate, generate, the README's code; the task ran in the app's process and under task-runner start)"
  cd "$work"
}

count_sent() { timeout 60 npx tsx src/count-sent.ts 2>/dev/null; }

if [ "$#" -eq 0 ]; then databases=(postgresql sqlite mariadb); else databases=("$@"); fi
for database in "${databases[@]}"; do setup "$database"; done
echo "README setup: PASS (${databases[*]})"
