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
  const generic = `Invalid request ${source} input`;
  if (result.success) {
    // JSON may carry strings that are not Unicode text (a lone UTF-16 surrogate, "\ud800"): the database would
    // silently store U+FFFD instead, so they are refused here for every field of every route at once.
    const broken = findBrokenText(value);
    if (broken === undefined) return result.data;
    const key = broken || source;
    throw options.detailed
      ? badRequest(`${generic}: "${key}" must be valid Unicode text (a lone surrogate was found)`, { validation: { source, keys: [key] } })
      : badRequest(generic);
  }
  if (!options.detailed) throw badRequest(generic);
  const keys = [...new Set(result.error.issues.map((issue) => issue.path.join('.') || source))];
  const reasons = result.error.issues.map((issue) => `"${issue.path.join('.') || source}" ${issue.message}`);
  throw badRequest(`${generic}: ${reasons.join('; ')}`, { validation: { source, keys } });
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The dotted path of the first string (or key) holding a lone surrogate in a parsed JSON value, else undefined. */
function findBrokenText(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (LONE_SURROGATE.test(key)) return at;
    const found = findBrokenText(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}
