// The dashboard's task list query: filters read from the URL, the time range turned into uuidv7 id bounds, and what it
// ignores explained. (What the list, counts and overview read from each database: test/conformance/store/views.ts.)

import { describe, expect, it } from "vitest";
import { idAtTime, parseListQuery } from "../../src/dashboard/list-query.js";
import { uuidv7 } from "../../src/uuid.js";

describe("list query parsing", () => {
  it("reads filters, turns the time range into id bounds, and explains what it ignores", () => {
    const id = uuidv7();
    const query = parseListQuery(new URLSearchParams({ status: "expired", queue: " mail ", from: "2026-01-02T03:04", to: "2026-01-02T05:00", before: id }));
    expect(query.filter).toEqual({
      status: "expired",
      queue: "mail",
      fromId: idAtTime(Date.UTC(2026, 0, 2, 3, 4)),
      toId: idAtTime(Date.UTC(2026, 0, 2, 5, 1)),
    });
    expect(query.page).toEqual({ limit: 50, before: id });
    const bad = parseListQuery(new URLSearchParams({ status: "stuck", from: "yesterday", before: "x" }));
    expect(bad.problems).toEqual([
      'Unknown status "stuck": use one of pending, running, succeeded, dead, cancelled, due, expired.',
      '"yesterday" is not a time for "from": use YYYY-MM-DDTHH:MM (UTC).',
      "The page cursor is not a task id; showing the newest tasks.",
    ]);
    expect(bad.filter).toEqual({});
    expect(idAtTime(0x0123456789ab)).toBe("01234567-89ab-0000-0000-000000000000");
  });
});
