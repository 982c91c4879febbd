// Shared zod pieces for request bodies. JSON null for an optional string means "absent"
// (auth-js sends code_challenge: null), and unknown fields are ignored.
import { z } from 'zod';

export const optionalString = z
  .string()
  .nullish()
  .transform((v) => (v === null || v === undefined || v === '' ? undefined : v));

export const metadataObject = z
  .record(z.string(), z.unknown())
  .nullish()
  .transform((v) => v ?? undefined);

/** An optional string stored in a varchar(255) column (aud, role): longer is 400, not a 500. */
export const columnString = z
  .string()
  .max(255)
  .nullish()
  .transform((v) => (v === null || v === undefined || v === '' ? undefined : v));

/** The PKCE pair every email flow accepts (auth-js sends both, possibly null). */
export const pkceFields = { code_challenge: optionalString, code_challenge_method: optionalString };
