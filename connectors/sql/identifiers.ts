/** SQL identifiers we create: lower-case, Postgres' 63-byte limit, so they never need escaping. */
export const IDENTIFIER_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/** Columns every stream table has; a stream may not declare them again. */
export const RESERVED_COLUMNS: ReadonlySet<string> = new Set(['business_id', 'id', 'source', 'raw', 'synced_at']);

/** Throws naming `what` unless `name` is a safe identifier; returns it for chaining. */
export function assertIdentifier(name: string, what: string): string {
  if (!IDENTIFIER_PATTERN.test(name)) {
    throw new Error(`${what} ${JSON.stringify(name)} is not a safe SQL identifier (${IDENTIFIER_PATTERN.source})`);
  }
  return name;
}

/** Quotes an identifier already checked by {@link assertIdentifier}; quoting also guards reserved words. */
export function quoteIdentifier(name: string): string {
  return `"${assertIdentifier(name, 'identifier')}"`;
}
