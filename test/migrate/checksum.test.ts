// The checksum rule against Prisma's own examples (the tests of schema-connector/src/checksum.rs in
// https://github.com/prisma/prisma-engines): the digest of "hello", line endings that still match, and scripts that
// do not; plus a checksum an older engine stored without zero padding.

import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checksumMatches, migrationChecksum } from "../../src/migrate/checksum.js";

describe("migrationChecksum", () => {
  it("is SHA-256 in 64 lower-case hex digits, leading zeros kept", () => {
    expect(migrationChecksum("hello")).toBe("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
    expect(migrationChecksum("abcd")).toHaveLength(64);
    expect(migrationChecksum("CREATE TABLE café ();\r\n")).toBe(createHash("sha256").update(Buffer.from("CREATE TABLE café ();\r\n", "utf8")).digest("hex"));
  });
});

describe("checksumMatches", () => {
  it("accepts a script whose line endings git changed, either way", () => {
    const pairs = [
      ["ab\ncd\nef\ngh\rab", "ab\r\ncd\r\nef\r\ngh\rab"],
      ["ab\ncd\nef\ngh\rab\n", "ab\r\ncd\r\nef\r\ngh\rab\r\n"],
    ];
    for (const pair of pairs) for (const script of pair) for (const other of pair) expect(checksumMatches(script, migrationChecksum(other))).toBe(true);
  });

  it("refuses another script, even one newline apart", () => {
    expect(checksumMatches("abc", migrationChecksum("abcd"))).toBe(false);
    expect(checksumMatches("abc\n", migrationChecksum("abc"))).toBe(false);
  });

  it("compares a checksum stored without zero padding in that form", () => {
    const digest = createHash("sha256").update("hello").digest();
    const unpadded = [...digest].map((byte) => byte.toString(16)).join("");
    expect(unpadded.length).toBeLessThan(64);
    expect(checksumMatches("hello", unpadded)).toBe(true);
    expect(checksumMatches("hello!", unpadded)).toBe(false);
  });
});
