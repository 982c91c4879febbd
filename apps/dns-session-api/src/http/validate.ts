import type { z } from 'zod';
import { badRequest } from '../errors';

export type InputSource = 'payload' | 'params' | 'query';

/**
 * Parses one part of the request with its zod schema. On failure: 400 "Invalid request <source> input"
 * (hapi's wording). Outside production, unless the route asks for the generic text, the message also names
 * each failing field and the body carries validation {source, keys}, so a developer sees what to fix.
 */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  source: InputSource,
  options: { detailed: boolean },
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const generic = `Invalid request ${source} input`;
  if (!options.detailed) throw badRequest(generic);
  const keys = [...new Set(result.error.issues.map((issue) => issue.path.join('.') || source))];
  const reasons = result.error.issues.map((issue) => `"${issue.path.join('.') || source}" ${issue.message}`);
  throw badRequest(`${generic}: ${reasons.join('; ')}`, { validation: { source, keys } });
}
