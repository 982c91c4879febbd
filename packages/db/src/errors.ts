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

/** The first non-empty message in `err`, its AggregateError members (a host name with two addresses) or its cause. */
function firstMessage(err: unknown, depth = 0): string | undefined {
  if (typeof err !== 'object' || err === null || depth > 4) return undefined;
  const { message, errors, cause } = err as { message?: unknown; errors?: unknown; cause?: unknown };
  if (typeof message === 'string' && message.trim() !== '') return message.trim().split('\n')[0];
  if (Array.isArray(errors)) for (const member of errors) {
    const found = firstMessage(member, depth + 1);
    if (found) return found;
  }
  return firstMessage(cause, depth + 1);
}

const CONNECT_PROBLEMS: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections there',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  ETIMEDOUT: 'the server did not answer',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  '3D000': 'the database does not exist',
  '28P01': 'the server refused the credentials',
  '28000': 'the server refused the connection',
  '42501': 'the user may not do this',
  '57P03': 'the server is starting up or shutting down',
  '53300': 'the server has too many connections',
};

/**
 * One line saying why the database cannot be used at start-up (missing, refusing, unreachable), or undefined when
 * `err` is not a database or connection error. Never the URL (it may hold the password).
 */
export function databaseProblem(err: unknown): string | undefined {
  let code = pgErrorCode(err);
  const nested = (err as { errors?: unknown[] } | null)?.errors;
  if (code === undefined && Array.isArray(nested)) code = pgErrorCode(nested[0]);
  const pgLike = code !== undefined && (/^[0-9A-Z]{5}$/.test(code) || code in CONNECT_PROBLEMS || UNAVAILABLE_SOCKET_CODES.has(code));
  if (!pgLike && !isDatabaseUnavailable(err)) return undefined;
  const message = firstMessage(err) ?? 'no message';
  const meaning = code === undefined ? undefined : CONNECT_PROBLEMS[code];
  return meaning ? `${meaning} (${message})` : message;
}
