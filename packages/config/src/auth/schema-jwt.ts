// JWT settings. JWT_KEYS is a JSON array of private JWKs; exactly one carries key_ops "sign" (reference §3.2).
import { z } from 'zod';
import type { EnvReader } from './env-reader';
import type { Jwk, JwtConfig } from './schema';
import { weakKeyReason, weakSecretReason } from '../secret-strength';

const jwkSchema = z.looseObject({
  kty: z.string().min(1),
  kid: z.string().optional(),
  alg: z.string().optional(),
  use: z.string().optional(),
  key_ops: z.array(z.string()).optional(),
});
const jwksSchema = z.array(jwkSchema).min(1);

function parseJwtKeys(raw: string): Jwk[] | undefined {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const parsed = jwksSchema.safeParse(json);
  return parsed.success ? (parsed.data as Jwk[]) : undefined;
}

/**
 * Production: JWT_SECRET and every HS256 ("oct") key in JWT_KEYS must be long and unpredictable, as anyone who
 * guesses the secret signs service_role tokens (issue 39).
 */
function checkHmacStrength(r: EnvReader, secret: string | undefined, keys: Jwk[] | undefined): void {
  const weakSecret = secret === undefined ? undefined : weakSecretReason(secret);
  if (weakSecret) r.problem(`${r.display('JWT_SECRET')}: ${weakSecret}`);
  keys?.forEach((key, index) => {
    if (key.kty !== 'oct' || typeof key.k !== 'string') return;
    const weakKey = weakKeyReason(Buffer.from(key.k, 'base64url'));
    if (weakKey) r.problem(`${r.display('JWT_KEYS')}[${index}] (kid ${JSON.stringify(key.kid ?? '')}): ${weakKey}`);
  });
}

export function readJwt(r: EnvReader, production = false): JwtConfig {
  const keys = r.read('JWT_KEYS', 'a JSON array of JWKs', parseJwtKeys);
  if (keys) {
    const signing = keys.filter((key) => key.key_ops?.includes('sign')).length;
    if (signing !== 1) {
      r.problem(`${r.display('JWT_KEYS')}: exactly one key must have key_ops containing "sign" (found ${signing})`);
    }
  }
  const secret = r.string('JWT_SECRET');
  if (secret === undefined && !r.isSet('JWT_KEYS')) r.problem(`${r.display('JWT_SECRET')}: required (or set ${r.display('JWT_KEYS')})`);
  if (production) checkHmacStrength(r, secret, keys);
  return {
    secret,
    keys,
    keyId: r.string('JWT_KEY_ID')?.trim(),
    exp: r.int('JWT_EXP', { min: 1 }) ?? 3600,
    aud: r.string('JWT_AUD')?.trim() ?? 'authenticated',
    issuer: r.string('JWT_ISSUER')?.trim(),
    adminRoles: r.list('JWT_ADMIN_ROLES') ?? ['service_role', 'supabase_admin'],
    defaultGroupName: r.string('JWT_DEFAULT_GROUP_NAME')?.trim() ?? 'authenticated',
    adminGroupName: r.string('JWT_ADMIN_GROUP_NAME')?.trim() ?? 'admin',
    requireExp: r.bool('JWT_REQUIRE_EXP') ?? false,
  };
}
