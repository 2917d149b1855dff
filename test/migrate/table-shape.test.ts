// Reading a migration script's tables and columns (what --baseline compares): the statements that change columns in
// either quoting style, with comments, strings and nested parentheses in the way, and the marker of the package's SQL.

import { describe, expect, it } from "vitest";
import { isTaskQueueMigration, scriptEffect } from "../../src/migrate/table-shape.js";

describe("scriptEffect", () => {
  it("reads CREATE TABLE columns past comments, strings, nested parentheses and constraints", () => {
    const effect = scriptEffect(`-- prisma-task-queue: a table
      CREATE TABLE IF NOT EXISTS "app"."queue_tasks" (
        "id" TEXT NOT NULL PRIMARY KEY, -- a comment, with (parentheses)
        "run_at" DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%f+00:00', 'now')),
        "odd ""name""" TEXT CHECK ("status" IN ('a', 'b')),
        plain_word INTEGER,
        CONSTRAINT "queue_tasks_check" CHECK (1 = 1),
        PRIMARY KEY ("id")
      );
      CREATE INDEX "queue_tasks_idx" ON "queue_tasks"("run_at");`);
    expect(effect.creates).toEqual(["queue_tasks"]);
    expect(effect.after.get("queue_tasks")).toEqual(["id", "run_at", 'odd "name"', "plain_word"]);
  });

  it("follows ALTER TABLE clauses and DROP TABLE over the shapes before the script", () => {
    const before = scriptEffect("CREATE TABLE `tasks` (`id` CHAR(36), `result` JSON, `old` TEXT); CREATE TABLE `gone` (`id` INT);").after;
    const effect = scriptEffect(
      `ALTER TABLE \`tasks\` ADD COLUMN \`errors\` JSON NULL, ADD \`finished_by\` VARCHAR(200) NULL, DROP COLUMN \`result\`, ADD INDEX \`i\`(\`errors\`);
       ALTER TABLE tasks RENAME COLUMN old TO newer;
       ALTER TABLE tasks ADD COLUMN IF NOT EXISTS errors JSON;
       DROP TABLE IF EXISTS \`gone\`;`,
      before,
    );
    expect(effect.creates).toEqual([]);
    expect([...effect.after]).toEqual([["tasks", ["id", "newer", "errors", "finished_by"]]]);
    expect(before.get("tasks")).toEqual(["id", "result", "old"]);
  });
});

describe("isTaskQueueMigration", () => {
  it("is the package's marker comment at the top, and nothing else", () => {
    expect(isTaskQueueMigration("\n-- prisma-task-queue: creates the task table\nCREATE TABLE x (id INT);")).toBe(true);
    expect(isTaskQueueMigration("CREATE TABLE x (id INT); -- prisma-task-queue")).toBe(false);
    expect(isTaskQueueMigration('-- CreateTable\nCREATE TABLE "User" (id INT);')).toBe(false);
  });
});
