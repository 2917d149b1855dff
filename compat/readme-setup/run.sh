#!/usr/bin/env bash
# Follows the README's "Setup in your app" for a PostgreSQL app with no RabbitMQ, as a new user would: packs this
# repository, installs it into a fresh Prisma 7 app (`npm i prisma-task-queue zod pg @prisma/adapter-pg tsx` plus
# prisma), runs `npx task-runner init`, applies its migration with psql (`prisma migrate deploy` cannot download its
# engine on this machine), runs `npx prisma generate`, writes src/tasks.ts, src/db.ts, task-runner.config.ts and the
# enqueue snippet from the README's own code blocks, starts `npx task-runner start`, enqueues in a transaction and
# waits for the handler's write. No AMQP_URL anywhere: the wake-up is PostgreSQL NOTIFY, and amqplib is not installed.
# Ends with "README setup: PASS".
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
server="${DATABASE_URL:-postgresql://postgres@127.0.0.1:5432/postgres}"
db="ptq_readme_$$"
app="$(mktemp -d)"
runner=""
cleanup() {
  if [ -n "$runner" ]; then kill -TERM "$runner" 2>/dev/null || true; wait "$runner" 2>/dev/null || true; fi
  psql "$server" -q -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$app"
}
trap cleanup EXIT
version() { node -p "require('$root/node_modules/$1/package.json').version"; }

(cd "$root" && npm pack --silent --pack-destination "$app" >/dev/null)
cd "$app"
cat > package.json <<'JSON'
{ "name": "readme-app", "private": true, "type": "module" }
JSON
mkdir prisma
cat > prisma/schema.prisma <<'PRISMA'
generator client {
  provider = "prisma-client"
  output   = "../src/generated/prisma"
}

datasource db {
  provider = "postgresql"
}

model Report {
  id     String @id @default(uuid()) @db.Uuid
  status String @default("pending")

  @@map("reports")
}
PRISMA
# Step 1 (the tarball stands for the published package): its optional peers this app uses (pg for PostgreSQL, tsx for
# the TypeScript config), with the app's own Prisma 7 packages.
npm install --no-audit --no-fund --silent ./prisma-task-queue-*.tgz zod@"$(version zod)" pg@"$(version pg)" tsx@"$(version tsx)" \
  @prisma/client@"$(version @prisma/client)" @prisma/adapter-pg@"$(version @prisma/adapter-pg)" prisma@"$(version prisma)"
# Step 2.
npx task-runner init > init.log
grep -q "Next:" init.log || { cat init.log; echo "README setup: FAIL (init printed no next steps)"; exit 1; }
# Step 3.
url="$(node -e 'const u=new URL(process.argv[1]); u.pathname="/"+process.argv[2]; console.log(u.toString())' "$server" "$db")"
psql "$server" -q -c "CREATE DATABASE \"$db\""
psql "$url" -q -v ON_ERROR_STOP=1 -c 'CREATE TABLE reports (id uuid PRIMARY KEY, status text NOT NULL DEFAULT '"'"'pending'"'"')' \
  -f prisma/migrations/*_tasks_task_queue/migration.sql
PRISMA_SCHEMA_ENGINE_BINARY="$(command -v node)" npx prisma generate >/dev/null
# Steps 4 and 5, from the README's code blocks.
node "$here/extract-blocks.mjs" "$root/README.md" "$app"
export DATABASE_URL="$url"
unset AMQP_URL
npx task-runner start > runner.log 2>&1 &
runner=$!
for _ in $(seq 1 100); do grep -q '"worker started"\|worker started' runner.log && break; sleep 0.1; done
npx tsx src/enqueue.ts
status=""
for _ in $(seq 1 100); do
  status="$(psql "$url" -tA -c "SELECT status FROM reports")"
  [ "$status" = "sent" ] && break
  sleep 0.1
done
npx task-runner status > status.log
if [ "$status" != "sent" ]; then
  cat runner.log status.log
  echo "README setup: FAIL (the report is \"$status\", not \"sent\", 10 s after the enqueue)"
  exit 1
fi
grep -q "PostgreSQL NOTIFY" status.log || { cat status.log; echo "README setup: FAIL (status does not name the NOTIFY transport)"; exit 1; }
echo "README setup: PASS (init, migration, generate, the README's code; the task ran through PostgreSQL NOTIFY with no broker)"
