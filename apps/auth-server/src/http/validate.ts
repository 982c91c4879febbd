// Validate once, at the edge: a route turns untrusted input into typed input with a zod schema;
// failures are 400 validation_failed (never a 500).
import type { z } from 'zod';
import { ApiError, ErrorCode } from '../errors';

export function validate<S extends z.ZodType>(schema: S, value: unknown, message?: string): z.infer<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const first = result.error.issues[0];
  const where = first && first.path.length > 0 ? `${first.path.join('.')}: ` : '';
  throw new ApiError(400, ErrorCode.validation_failed, message ?? `${where}${first?.message ?? 'invalid input'}`);
}
