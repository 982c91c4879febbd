import { z } from 'zod';

// Field rules for users and groups (NicTool's Joi rules, minus its login-time password rule).

export const username = z
  .string()
  .min(3)
  .max(50)
  .regex(/^[A-Za-z0-9 _.@-]+$/, 'may contain letters, digits, space, _ . @ and -')
  .meta({ example: 'unit-test' });

export const email = z.email().max(254).transform((v) => v.toLowerCase()).meta({ example: 'unit-test@example.com' });

/** bcrypt reads at most 72 bytes; longer passwords would be silently truncated, so they are refused. */
export const password = z
  .string()
  .min(8)
  .refine((v) => Buffer.byteLength(v, 'utf8') <= 72, 'must be at most 72 bytes')
  // bcrypt reads the key as a C string: everything after a NUL would be silently ignored
  .refine((v) => !v.includes('\u0000'), 'may not contain NUL characters')
  .meta({ example: 'Wh@tA-Decent#P6ssw0rd' });

/** PostgreSQL text refuses NUL characters: refused here, naming the field. */
export const personName = z.string().min(1).max(160).refine((v) => !v.includes('\u0000'), 'may not contain NUL characters');

export const groupName = z
  .string()
  .min(3)
  .max(255)
  .regex(/^[A-Za-z0-9][A-Za-z0-9 _.@'-]*$/, "starts with a letter or digit; then letters, digits, space, _ . @ ' and -")
  .meta({ example: 'example.com' });
