/**
 * Whether a store error means "the database cannot serve now" (it is down, restarting,
 * unreachable, out of connections, or its disk is full) rather than a bug: those become
 * 503 UNAVAILABLE with Retry-After (tools/store-errors.ts), never a 500, and the pool reconnects
 * by itself once the database is back. Driver knowledge stays here, in the store layer.
 */

/** PostgreSQL SQLSTATEs of an unusable connection or server: class 08, shutdown/startup (57P0x), too many connections. */
const PG_CODES = new Set(['08000', '08001', '08003', '08004', '08006', '08007', '57P01', '57P02', '57P03', '53300']);
/** Node's socket errors on the way to the database. */
const NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
/** node-postgres' own messages for a connection that went away or never came. */
const PG_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly/i;

export function unavailableReason(err: unknown): string | null {
  if (!(err instanceof Error)) return null;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NET_CODES.has(code)) return `the database is unreachable (${code})`;
    if (PG_CODES.has(code)) return code === '53300' ? 'the database has no free connection' : `the database is restarting or down (${code})`;
    if (code === 'SQLITE_FULL') return 'the disk holding the database is full';
    if (code.startsWith('SQLITE_IOERR') || code === 'SQLITE_CANTOPEN') return `the database file cannot be read or written (${code})`;
  }
  if (PG_MESSAGES.test(err.message)) return `the database connection was lost (${err.message})`;
  return null;
}
