import { z } from 'zod';
import { API_VERSION } from '../version';

// Every success body carries meta {api: {version}, msg} (spec Part 9). Routes build bodies only through these
// helpers so the wire shape of the envelope lives in one place.

export const metaSchema = z.object({
  api: z.object({ version: z.string().meta({ example: API_VERSION }) }),
  msg: z.string(),
});

export type Meta = z.infer<typeof metaSchema>;

export function meta(msg: string): Meta {
  return { api: { version: API_VERSION }, msg };
}

/** `{ [resourceName]: data, meta }`, e.g. envelope('user', user, "here's your user"). */
export function envelope<K extends string, T>(resourceName: K, data: T, msg: string): { [P in K]: T } & { meta: Meta } {
  return { [resourceName]: data, meta: meta(msg) } as { [P in K]: T } & { meta: Meta };
}

/** Several top-level resources at once (the login response has user, group and session). */
export function withMeta<T extends Record<string, unknown>>(parts: T, msg: string): T & { meta: Meta } {
  return { ...parts, meta: meta(msg) };
}

/** The response schema matching envelope(): z.object({ [name]: schema, meta }). */
export function envelopeSchema<K extends string, S extends z.ZodType>(resourceName: K, schema: S) {
  return z.object({ [resourceName]: schema, meta: metaSchema } as { [P in K]: S } & { meta: typeof metaSchema });
}

export const metaOnlySchema = z.object({ meta: metaSchema });
