// Driver-neutral checks on database errors. node-postgres (DatabaseError) and PGlite both expose the
// SQLSTATE as `code` and the violated constraint/index as `constraint`.

interface PgLikeError {
  code?: unknown;
  constraint?: unknown;
}

function pgError(err: unknown): PgLikeError | undefined {
  return typeof err === 'object' && err !== null ? (err as PgLikeError) : undefined;
}

/** SQLSTATE of a database error, or undefined when `err` is not one. */
export function pgErrorCode(err: unknown): string | undefined {
  const code = pgError(err)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Name of the constraint or unique index a database error names, if any. */
export function pgErrorConstraint(err: unknown): string | undefined {
  const constraint = pgError(err)?.constraint;
  return typeof constraint === 'string' ? constraint : undefined;
}

/**
 * True for a unique violation (23505). With `constraint`, only when that constraint was violated;
 * a DB_NAMESPACE-prefixed name (`<ns>_users_email_partial_key`) also matches `users_email_partial_key`.
 */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (pgErrorCode(err) !== '23505') return false;
  if (constraint === undefined) return true;
  const actual = pgErrorConstraint(err);
  return actual !== undefined && (actual === constraint || actual.endsWith(`_${constraint}`));
}

/** True for a foreign-key violation (23503). */
export function isForeignKeyViolation(err: unknown): boolean {
  return pgErrorCode(err) === '23503';
}

/**
 * True when retrying the transaction may succeed: lock not available (55P03, NOWAIT / lock_timeout),
 * serialization failure (40001) or deadlock (40P01).
 */
export function isSerializationOrLockError(err: unknown): boolean {
  const code = pgErrorCode(err);
  return code === '55P03' || code === '40001' || code === '40P01';
}

const UNAVAILABLE_SQLSTATE = /^(08|57P0[1-3]|53300)/; // connection exceptions, shutdown, cannot connect now, too many connections
const UNAVAILABLE_SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'connection timeout',
  'Client has encountered a connection error',
  'timeout exceeded when trying to connect',
  'Cannot use a pool after calling end',
];

/**
 * True when the database could not be reached or dropped the connection (server down, restarting,
 * network, pool timeout): the request may succeed if retried later, so services answer 503.
 * Also looks through `cause` and AggregateError members (node-postgres wraps some of these).
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 4) return false;
  const code = pgErrorCode(err);
  if (code !== undefined && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SOCKET_CODES.has(code))) return true;
  const message = (err as { message?: unknown }).message;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.includes(m))) return true;
  const nested = err as { cause?: unknown; errors?: unknown };
  if (Array.isArray(nested.errors) && nested.errors.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return isDatabaseUnavailable(nested.cause, depth + 1);
}
