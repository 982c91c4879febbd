// PostgreSQL text and jsonb cannot hold U+0000: a NUL anywhere in a body or a filter would reach
// the database as an error (500). The admin routes refuse it at the edge instead.
import { ApiError, ErrorCode } from '../errors';

function containsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (depth > 64 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => containsNul(v, depth + 1));
  return Object.entries(value).some(([k, v]) => k.includes('\u0000') || containsNul(v, depth + 1));
}

/** 400 validation_failed when `value` (a parsed body or a query value) contains a NUL character. */
export function refuseNul(value: unknown, what: string): void {
  if (containsNul(value)) throw new ApiError(400, ErrorCode.validation_failed, `${what} must not contain NUL (\\u0000) characters`);
}
