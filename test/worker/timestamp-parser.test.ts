// The worker pool's fast timestamptz reader gives exactly what pg's own parser gives, for the text PostgreSQL
// really sends: every time zone shape (whole hours, half hours, historic offsets with seconds), fractions of every
// length, years far apart, BC and infinity.

import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseTimestamptz } from "../../src/dialects/postgres/timestamp-parser.js";
import { createTestDatabase, type TestDatabase } from "../support/database.js";

const pgParser = pg.types.getTypeParser(1184, "text") as (text: string) => unknown;

let database: TestDatabase;
let client: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  client = new pg.Client({ connectionString: database.url, types: { getTypeParser: () => (text: string) => text } });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await database?.drop();
});

/** The text PostgreSQL sends for a sample of timestamps in time zone `zone`. */
async function samples(zone: string): Promise<string[]> {
  await client.query(`SET TIME ZONE '${zone}'`);
  const { rows } = await client.query<{ at: string }>(
    `SELECT at::text AS at FROM (
       SELECT now() AS at
       UNION ALL SELECT clock_timestamp()
       UNION ALL SELECT date_trunc('second', now())
       UNION ALL SELECT date_trunc('milliseconds', now())
       UNION ALL SELECT timestamptz '2026-03-29 01:59:59.999999+00'
       UNION ALL SELECT timestamptz '1999-12-31 23:59:59.5+00'
       UNION ALL SELECT timestamptz '1900-01-01 00:00:00+00'
       UNION ALL SELECT timestamptz '1066-10-14 09:00:00.12+00'
       UNION ALL SELECT timestamptz '0099-06-01 12:00:00+00'
       UNION ALL SELECT timestamptz '0001-01-01 00:00:00+00'
       UNION ALL SELECT timestamptz '0044-03-15 12:00:00+00 BC'
       UNION ALL SELECT timestamptz '12345-01-01 00:00:00+00'
       UNION ALL SELECT timestamptz 'infinity'
       UNION ALL SELECT timestamptz '-infinity'
       UNION ALL SELECT timestamptz '2026-11-21 00:00:00+00' + n * interval '7 hours 13 minutes 17.654321 seconds'
         FROM generate_series(1, 200) AS n
     ) AS s`,
  );
  return rows.map((row) => row.at);
}

describe("parseTimestamptz", () => {
  for (const zone of ["UTC", "Asia/Kolkata", "America/St_Johns", "Africa/Monrovia", "Europe/Amsterdam", "Pacific/Chatham"]) {
    it(`reads what PostgreSQL sends in time zone ${zone} as pg's parser does`, async () => {
      const texts = await samples(zone);
      expect(texts.length).toBeGreaterThan(200);
      for (const text of texts) {
        const ours = parseTimestamptz(text);
        const theirs = pgParser(text);
        const asTime = (value: unknown) => (value instanceof Date ? value.getTime() : value);
        expect({ text, value: asTime(ours) }).toEqual({ text, value: asTime(theirs) });
      }
    });
  }

  it("truncates fractions to the millisecond, without rounding error", () => {
    expect((parseTimestamptz("2026-11-21 08:35:10.57+00") as Date).toISOString()).toBe("2026-11-21T08:35:10.570Z");
    expect((parseTimestamptz("2026-11-21 08:35:10.999999+00") as Date).toISOString()).toBe("2026-11-21T08:35:10.999Z");
    expect((parseTimestamptz("2026-11-21 08:35:10+05:30") as Date).toISOString()).toBe("2026-11-21T03:05:10.000Z");
  });
});
