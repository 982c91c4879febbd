import { createSecretKey, type KeyObject } from 'node:crypto';
import { SignJWT, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { TokenError } from '../errors';
import { toTokenError } from './jose-errors';
import { loadKeys, type JwtAlgorithm, type LoadedKey } from './keys';

export interface JwtService {
  /** The algorithm new tokens are signed with. */
  readonly algorithm: JwtAlgorithm;
  /** Signs `claims` with iat = now and exp = iat + expiresInSeconds; the header carries the signing key's kid (none for the legacy secret). */
  sign(claims: Record<string, unknown>, options: { expiresInSeconds: number; now?: Date }): Promise<string>;
  /**
   * Verifies signature, exp and nbf at `now`, and aud/iss when asked. Throws TokenError. exp is
   * required unless `requireExp: false` (GoTrue accepts service tokens without one).
   */
  verify(token: string, options?: { now?: Date; audience?: string; issuer?: string; requireExp?: boolean }): Promise<Record<string, unknown>>;
  /** The public JWKS document: asymmetric keys only, without private members; { keys: [] } for HS256 only. */
  jwks(): { keys: Record<string, unknown>[] };
}

export interface CreateJwtServiceOptions {
  /** JWT_SECRET: HS256. Signs when no keys are given; always verifies HS256 tokens without a kid. */
  secret?: string;
  /** JWT_KEYS: JSON string or array of private JWKs; the one whose key_ops contains "sign" signs. */
  keys?: string | object[];
  /** JWT_ISSUER: set as iss on signed tokens (unless the claims carry their own). */
  issuer?: string;
  /** Default clock when sign/verify get no `now`. */
  clock?: () => Date;
}

/**
 * Builds the access-token signer/verifier. Keys are imported once here; a bad key set fails now
 * (JwtKeyConfigError) rather than on the first request.
 */
export async function createJwtService(options: CreateJwtServiceOptions): Promise<JwtService> {
  const secret = options.secret ? createSecretKey(Buffer.from(options.secret, 'utf8')) : undefined;
  const keys: LoadedKey[] = options.keys !== undefined ? loadKeys(options.keys) : [];
  if (!secret && keys.length === 0) throw new Error('createJwtService: configure a JWT secret or JWT keys');

  const signer = keys.find((k) => k.signs);
  const algorithm: JwtAlgorithm = signer ? signer.alg : 'HS256';
  const signKey = (signer ? signer.privateKey : secret) as KeyObject;
  const byKid = new Map(keys.map((k) => [k.kid, k] as const));
  const allowed = new Set<string>(keys.map((k) => k.alg));
  if (secret) allowed.add('HS256');
  const publicJwks = keys.flatMap((k) => (k.publicJwk ? [k.publicJwk] : []));
  const clock = options.clock ?? (() => new Date());
  const issuer = options.issuer || undefined;

  function selectKey(alg: string, kid: unknown): KeyObject {
    if (kid !== undefined && typeof kid !== 'string') throw new TokenError('malformed', 'kid is not a string');
    if (kid !== undefined && keys.length > 0) {
      const key = byKid.get(kid);
      if (!key) throw new TokenError('unknown_kid', 'unknown kid');
      if (key.alg !== alg) throw new TokenError('alg_not_allowed', `alg ${alg} does not match the key`);
      return key.verifyKey;
    }
    // No kid (or no key set): only the legacy HS256 secret can apply (GoTrue does the same).
    if (alg === 'HS256' && secret) return secret;
    throw new TokenError('unknown_kid', 'token has no kid');
  }

  return {
    algorithm,

    async sign(claims, { expiresInSeconds, now }) {
      if (!Number.isFinite(expiresInSeconds) || expiresInSeconds <= 0) {
        throw new RangeError('sign: expiresInSeconds must be a positive number');
      }
      const iat = Math.floor((now ?? clock()).getTime() / 1000);
      const payload: JWTPayload = { ...claims, iat, exp: iat + Math.floor(expiresInSeconds) };
      if (issuer && payload.iss === undefined) payload.iss = issuer;
      const header = signer ? { alg: algorithm, typ: 'JWT', kid: signer.kid } : { alg: algorithm, typ: 'JWT' };
      return new SignJWT(payload).setProtectedHeader(header).sign(signKey);
    },

    async verify(token, verifyOptions = {}) {
      if (typeof token !== 'string' || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)) {
        throw new TokenError('malformed', 'not a compact JWS');
      }
      let header: ReturnType<typeof decodeProtectedHeader>;
      try {
        header = decodeProtectedHeader(token);
      } catch {
        throw new TokenError('malformed', 'unreadable header');
      }
      const alg = header.alg;
      if (typeof alg !== 'string') throw new TokenError('malformed', 'header has no alg');
      if (alg === 'none' || !allowed.has(alg)) throw new TokenError('alg_not_allowed', `alg ${alg} is not allowed`);
      const key = selectKey(alg, header.kid);
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [alg],
          currentDate: verifyOptions.now ?? clock(),
          audience: verifyOptions.audience,
          issuer: verifyOptions.issuer,
          requiredClaims: verifyOptions.requireExp === false ? [] : ['exp'],
        });
        return payload as Record<string, unknown>;
      } catch (err) {
        throw toTokenError(err);
      }
    },

    jwks() {
      return { keys: publicJwks.map((jwk) => structuredClone(jwk)) };
    },
  };
}
