// The part of a Prisma client the extension uses: $transaction to wrap, $extends to add the methods, and what the
// client tells of its models, engine and version. Every Prisma client (6 and 7, any adapter) has this shape.

/** The arguments the extension passes to `$extends`. */
export interface ExtensionDefinition {
  name: string;
  model: Record<string, Record<string, (this: unknown, ...args: never[]) => unknown>>;
  client: Record<string, unknown>;
}

/** A Prisma client (or transaction client) as the extension sees it. */
export interface PrismaClientLike {
  /** Prisma's own $transaction: a callback with options, or an array of queries with options. */
  $transaction: (this: unknown, ...args: unknown[]) => Promise<unknown>;
  $extends(extension: ExtensionDefinition): unknown;
  /** The models of the schema, with the table each maps to (Prisma 6 and 7 keep it here). */
  readonly _runtimeDataModel?: { readonly models?: Readonly<Record<string, { readonly dbName: string | null }>> };
  /** The client's version, e.g. "7.10.0". */
  readonly _clientVersion?: unknown;
}

/** The version of the Prisma client, e.g. "7.10.0"; "unknown" when it does not say. */
export function prismaVersion(client: PrismaClientLike): string {
  const version = client._clientVersion;
  return typeof version === "string" ? version : "unknown";
}
