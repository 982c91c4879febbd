import { createPrivateKey, createPublicKey, createSecretKey, type JsonWebKey, type KeyObject } from 'node:crypto';

export type JwtAlgorithm = 'HS256' | 'RS256' | 'ES256' | 'EdDSA';

/** One configured key, imported once at start-up. */
export interface LoadedKey {
  readonly kid: string;
  readonly alg: JwtAlgorithm;
  /** key_ops contains "sign": this key signs new tokens (exactly one per key set). */
  readonly signs: boolean;
  /** Private key (or the HMAC secret); undefined for a verify-only public JWK. */
  readonly privateKey: KeyObject | undefined;
  /** Public key (or the HMAC secret) used to verify. */
  readonly verifyKey: KeyObject;
  /** The published JWK (public members + kid, alg, use, key_ops); undefined for symmetric keys. */
  readonly publicJwk: Record<string, unknown> | undefined;
}

const ALGORITHMS: readonly JwtAlgorithm[] = ['HS256', 'RS256', 'ES256', 'EdDSA'];

/** Thrown for an unusable JWT_KEYS value. Messages name the key by position and kid, never its material. */
export class JwtKeyConfigError extends Error {
  override readonly name = 'JwtKeyConfigError';
}

/**
 * Parses JWT_KEYS: a JSON string or an already-parsed array of private JWKs (a {"keys": [...]} JWKS
 * object is accepted too). Every key needs a kid; alg is inferred from kty/crv when absent; exactly
 * one key has key_ops containing "sign".
 */
export function loadKeys(input: string | object[] | { keys: object[] }): LoadedKey[] {
  let raw: unknown = input;
  if (typeof input === 'string') {
    try {
      raw = JSON.parse(input);
    } catch {
      throw new JwtKeyConfigError('JWT_KEYS is not valid JSON');
    }
  }
  if (raw && typeof raw === 'object' && !Array.isArray(raw) && Array.isArray((raw as { keys?: unknown }).keys)) {
    raw = (raw as { keys: unknown[] }).keys;
  }
  if (!Array.isArray(raw)) throw new JwtKeyConfigError('JWT_KEYS must be a JSON array of JWKs');
  if (raw.length === 0) throw new JwtKeyConfigError('JWT_KEYS is empty');

  const keys = raw.map((jwk, index) => loadKey(jwk, index));
  const seen = new Set<string>();
  for (const key of keys) {
    if (seen.has(key.kid)) throw new JwtKeyConfigError(`JWT_KEYS: duplicate kid "${key.kid}"`);
    seen.add(key.kid);
  }
  const signing = keys.filter((k) => k.signs);
  if (signing.length !== 1) {
    throw new JwtKeyConfigError(
      `JWT_KEYS: exactly one key must have key_ops containing "sign" (found ${signing.length})`,
    );
  }
  return keys;
}

function loadKey(value: unknown, index: number): LoadedKey {
  const where = `JWT_KEYS[${index}]`;
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new JwtKeyConfigError(`${where} is not a JWK object`);
  }
  const jwk = value as Record<string, unknown>;
  if (typeof jwk.kid !== 'string' || jwk.kid === '') throw new JwtKeyConfigError(`${where} has no kid`);
  const kid = jwk.kid;
  const named = `${where} (kid "${kid}")`;
  const alg = resolveAlgorithm(jwk, named);
  const keyOps = jwk.key_ops;
  if (keyOps !== undefined && !Array.isArray(keyOps)) throw new JwtKeyConfigError(`${named}: key_ops must be an array`);
  const signs = Array.isArray(keyOps) && keyOps.includes('sign');

  if (alg === 'HS256') {
    if (typeof jwk.k !== 'string' || jwk.k === '') throw new JwtKeyConfigError(`${named}: oct key has no "k"`);
    const secret = createSecretKey(Buffer.from(jwk.k, 'base64url'));
    return { kid, alg, signs, privateKey: secret, verifyKey: secret, publicJwk: undefined };
  }

  const isPrivate = typeof jwk.d === 'string';
  if (signs && !isPrivate) throw new JwtKeyConfigError(`${named}: the signing key must be a private JWK`);
  let privateKey: KeyObject | undefined;
  let verifyKey: KeyObject;
  try {
    if (isPrivate) {
      privateKey = createPrivateKey({ key: jwk as JsonWebKey, format: 'jwk' });
      verifyKey = createPublicKey(privateKey);
    } else {
      verifyKey = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    }
  } catch {
    throw new JwtKeyConfigError(`${named}: not a valid ${String(jwk.kty)} JWK`);
  }
  checkKeyMatchesAlgorithm(verifyKey, alg, named);

  // Export from the public KeyObject: only public members can come out (no d, p, q, dp, dq, qi).
  const exported = verifyKey.export({ format: 'jwk' }) as Record<string, unknown>;
  const publicJwk = { ...exported, kid, alg, use: 'sig', key_ops: ['verify'] };
  return { kid, alg, signs, privateKey, verifyKey, publicJwk };
}

function resolveAlgorithm(jwk: Record<string, unknown>, named: string): JwtAlgorithm {
  const inferred = inferAlgorithm(jwk);
  if (jwk.alg === undefined) {
    if (!inferred) {
      throw new JwtKeyConfigError(
        `${named}: cannot infer alg from kty "${String(jwk.kty)}"${jwk.crv ? ` crv "${String(jwk.crv)}"` : ''}; supported: ${ALGORITHMS.join(', ')}`,
      );
    }
    return inferred;
  }
  if (typeof jwk.alg !== 'string' || !ALGORITHMS.includes(jwk.alg as JwtAlgorithm)) {
    throw new JwtKeyConfigError(`${named}: unsupported alg "${String(jwk.alg)}"; supported: ${ALGORITHMS.join(', ')}`);
  }
  if (jwk.alg !== inferred) {
    throw new JwtKeyConfigError(`${named}: alg "${jwk.alg}" does not fit kty "${String(jwk.kty)}"`);
  }
  return jwk.alg as JwtAlgorithm;
}

function inferAlgorithm(jwk: Record<string, unknown>): JwtAlgorithm | undefined {
  switch (jwk.kty) {
    case 'RSA':
      return 'RS256';
    case 'EC':
      return jwk.crv === 'P-256' ? 'ES256' : undefined;
    case 'OKP':
      return jwk.crv === 'Ed25519' ? 'EdDSA' : undefined;
    case 'oct':
      return 'HS256';
    default:
      return undefined;
  }
}

function checkKeyMatchesAlgorithm(key: KeyObject, alg: JwtAlgorithm, named: string): void {
  const type = key.asymmetricKeyType;
  const ok =
    (alg === 'RS256' && type === 'rsa' && (key.asymmetricKeyDetails?.modulusLength ?? 0) >= 2048) ||
    (alg === 'ES256' && type === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') ||
    (alg === 'EdDSA' && type === 'ed25519');
  if (!ok) throw new JwtKeyConfigError(`${named}: key does not fit ${alg} (RSA keys need at least 2048 bits)`);
}
