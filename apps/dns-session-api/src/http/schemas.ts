import { z } from 'zod';

// Input primitives shared by every route family.

/** A positive 32-bit integer id in a path segment ('42' → 42); anything else is a 400, never a lookup. */
export const idString = z
  .string()
  .regex(/^[1-9][0-9]{0,9}$/, 'must be a positive integer')
  .transform(Number)
  .pipe(z.number().int().max(2147483647))
  .meta({ description: 'A positive integer id', example: '4096' });

export const idParams = z.object({ id: idString });

/** A positive integer id inside a JSON body. */
export const idNumber = z.number().int().min(1).max(2147483647);

/** `?deleted=true` addresses soft-deleted objects only (NicTool semantics); absent or false: live ones. */
export const deletedQuery = z
  .object({
    deleted: z
      .enum(['true', 'false'])
      .optional()
      .transform((v) => v === 'true')
      .meta({ description: 'true: address deleted objects only' }),
  })
  .strict();

export const emptyQuery = z.object({}).strict();

/** The payload of an operation that takes none: nothing, or an empty JSON object. */
export const noPayload = z.object({}).strict().optional();
