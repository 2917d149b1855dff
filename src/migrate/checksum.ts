// The checksum Prisma Migrate stores in `_prisma_migrations.checksum` for a migration script, and the way it decides
// that a script still matches a stored checksum, so that records written here and by Prisma are interchangeable.
//
// Prisma's rule, as read in prisma-engines (schema-engine/connectors/schema-connector/src/checksum.rs,
// https://github.com/prisma/prisma-engines/blob/main/schema-engine/connectors/schema-connector/src/checksum.rs):
// the checksum is the SHA-256 of the script's UTF-8 text, written as 64 lower-case hex digits, computed on the text as
// read, without any normalisation. A stored checksum matches a script when it equals the checksum of the script as
// is, of the script with every CRLF turned into LF, or of the script with every LF turned into CRLF (git may change
// line endings on checkout). A stored checksum that is not 64 characters long was written by an older engine that
// dropped each byte's leading zero (https://github.com/prisma/prisma-engines/issues/1887) and is compared in that
// form. The Prisma CLI reads migration.sql as UTF-8 text (packages/migrate/src/utils/listMigrations.ts in
// https://github.com/prisma/prisma), so a script here is that same text.

import { createHash } from "node:crypto";

/** The checksum Prisma Migrate records for `script`: SHA-256 of its UTF-8 text, 64 lower-case hex digits. */
export function migrationChecksum(script: string): string {
  return createHash("sha256").update(script, "utf8").digest("hex");
}

/** True when `recorded` (from `_prisma_migrations`) is the checksum of `script` by Prisma Migrate's rule. */
export function checksumMatches(script: string, recorded: string): boolean {
  const variants = [script, script.replaceAll("\r\n", "\n"), script.replaceAll("\n", "\r\n")];
  const unpadded = recorded.length !== 0 && recorded.length !== 64;
  return variants.some((variant) => (unpadded ? unpaddedChecksum(variant) : migrationChecksum(variant)) === recorded);
}

/** The digest as older engines wrote it: each byte in hex without its leading zero. */
function unpaddedChecksum(script: string): string {
  return [...createHash("sha256").update(script, "utf8").digest()].map((byte) => byte.toString(16)).join("");
}
