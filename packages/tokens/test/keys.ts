import { createHmac } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';

const cache = new Map<string, Promise<Record<string, unknown>>>();

/** Key material per algorithm, generated once per test file unless `fresh` (RSA generation is slow). */
function keyMaterial(alg: 'RS256' | 'ES256' | 'EdDSA', fresh: boolean): Promise<Record<string, unknown>> {
  const generate = async () => {
    const { privateKey } = await generateKeyPair(alg, { extractable: true, crv: alg === 'EdDSA' ? 'Ed25519' : undefined });
    return { ...(await exportJWK(privateKey)) } as Record<string, unknown>;
  };
  if (fresh) return generate();
  if (!cache.has(alg)) cache.set(alg, generate());
  return cache.get(alg)!;
}

/** A private JWK for `alg`, as an operator would put it in JWT_KEYS. */
export async function privateJwk(
  alg: 'RS256' | 'ES256' | 'EdDSA',
  kid: string,
  options: { sign?: boolean; withAlg?: boolean; fresh?: boolean } = {},
): Promise<Record<string, unknown>> {
  const jwk: Record<string, unknown> = { ...(await keyMaterial(alg, options.fresh === true)), kid };
  if (options.withAlg !== false) jwk.alg = alg;
  jwk.key_ops = options.sign === false ? ['verify'] : ['sign', 'verify'];
  return jwk;
}

export function b64url(value: unknown): string {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

/** Builds a compact JWS by hand, HMAC-signed with `hmacKey` (or unsigned when undefined). */
export function forge(header: Record<string, unknown>, payload: Record<string, unknown>, hmacKey?: string | Buffer): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  const signature = hmacKey === undefined ? '' : createHmac('sha256', hmacKey).update(input).digest('base64url');
  return `${input}.${signature}`;
}

export const NOW = new Date('2026-01-01T00:00:00Z');
export const NOW_S = Math.floor(NOW.getTime() / 1000);
