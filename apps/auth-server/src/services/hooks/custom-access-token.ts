// The custom access token hook (GoTrue's HOOK_CUSTOM_ACCESS_TOKEN): gets {user_id, claims,
// authentication_method} before every access token is signed and answers {claims}. The answer must still carry
// the claims every client relies on (GoTrue's schema: aud, exp, iat, sub, email, phone, role, aal, session_id,
// is_anonymous), with exp after iat; otherwise no token is issued (500).
import { internalError } from '../../errors';
import { type HookDeps, runHook } from './run';

export type AccessTokenClaims = Record<string, unknown> & { iat: number; exp: number };

const STRING_CLAIMS = ['sub', 'email', 'phone', 'role', 'aal', 'session_id'] as const;

function conforms(claims: Record<string, unknown>): claims is AccessTokenClaims {
  const aud = claims.aud;
  return (
    (typeof aud === 'string' || (Array.isArray(aud) && aud.every((a) => typeof a === 'string'))) &&
    STRING_CLAIMS.every((name) => typeof claims[name] === 'string') &&
    typeof claims.is_anonymous === 'boolean' &&
    Number.isInteger(claims.iat) && Number.isInteger(claims.exp) && (claims.exp as number) > (claims.iat as number)
  );
}

export async function customClaims(
  deps: HookDeps,
  input: { userId: string; claims: Record<string, unknown>; issuedAt: Date; expiresIn: number; method: string },
): Promise<AccessTokenClaims> {
  const iat = Math.floor(input.issuedAt.getTime() / 1000);
  const claims = {
    ...(deps.config.jwt.issuer ? { iss: deps.config.jwt.issuer } : {}),
    ...input.claims,
    iat,
    exp: iat + input.expiresIn,
  };
  const output = await runHook(deps, 'customAccessToken', { user_id: input.userId, claims, authentication_method: input.method });
  const result = output.claims;
  if (result === null || typeof result !== 'object' || Array.isArray(result) || !conforms(result as Record<string, unknown>)) {
    deps.log.warn({ hook: 'customAccessToken' }, 'the custom access token hook answered claims without the required ones; no token issued');
    throw internalError('output claims do not conform to the expected schema');
  }
  return result as AccessTokenClaims;
}
