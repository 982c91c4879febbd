import { z } from 'zod';
import { idString } from '../http/schemas';

// Query-string primitives of the DNS list routes (query values arrive as text).

export const boolQuery = (description: string) =>
  z.enum(['true', 'false']).optional().transform((v) => v === 'true').meta({ description });

export const intQuery = (min: number, max: number, fallback: number, description: string) =>
  z
    .string()
    .regex(/^\d{1,10}$/, 'must be a non-negative integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((v) => v ?? fallback)
    .meta({ description: `${description} (default ${fallback}, ${min}–${max})` });

export const paging = {
  limit: intQuery(1, 1000, 100, 'page size'),
  offset: intQuery(0, 2147483647, 0, 'items to skip'),
  sort_dir: z.enum(['asc', 'desc']).optional().transform((v) => v ?? 'asc').meta({ description: 'asc (default) or desc' }),
};

export const gidQuery = idString.optional().meta({ description: 'the group to list (default: yours)' });
export const deletedFlag = boolQuery('true: deleted objects only');
export const subgroupsFlag = boolQuery('true: include the groups below gid');

export const ttl = z.number().int().meta({ description: 'seconds, 0–2147483647 (RFC 2181)', example: 3600 });

/** Free text that PostgreSQL can store: text columns and jsonb refuse NUL characters (a 500 otherwise). */
export const plainText = (max: number) =>
  z.string().max(max).refine((v) => !v.includes('\u0000'), 'may not contain NUL characters');
