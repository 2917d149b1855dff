// The one seam between the queue's core and a database driver.
// Every SQL unit takes a Db; the Prisma client and a pg pool are its two implementations.

/**
 * Runs one parameterised statement and returns its rows. `name`, given for the worker's hot statements, is a stable
 * name for `text`: a driver may prepare the statement once per connection under it (pg does) or ignore it (Prisma).
 */
export interface Db {
  query<Row = Record<string, unknown>>(text: string, values: readonly unknown[], name?: string): Promise<Row[]>;
}

/** A Db that can also run a function inside one transaction. */
export interface TransactionalDb extends Db {
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
}
