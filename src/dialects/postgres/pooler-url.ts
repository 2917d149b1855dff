// PgBouncer in transaction mode, as the URL says it (the `pgbouncer=true` parameter Prisma's own URLs use): a server
// session lasts one transaction there, so nothing may outlive one (named prepared statements, LISTEN, session advisory
// locks). The parameter is read here and taken off the URL, which pg would otherwise pass on.

/** The URL without `pgbouncer`, and whether it said `pgbouncer=true`. */
export function poolerUrl(url: string): { url: string; transactionPooled: boolean } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { url, transactionPooled: false };
  }
  if (!parsed.searchParams.has("pgbouncer")) return { url, transactionPooled: false };
  const transactionPooled = parsed.searchParams.get("pgbouncer") === "true";
  parsed.searchParams.delete("pgbouncer");
  return { url: parsed.toString(), transactionPooled };
}
