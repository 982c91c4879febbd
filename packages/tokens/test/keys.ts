import { createHmac } from 'node:crypto';
import { exportJWK, generateKeyPair } from 'jose';

/** A fresh private JWK for `alg`, as an operator would put it in JWT_KEYS. */
export async function privateJwk(
  alg: 'RS256' | 'ES256' | 'EdDSA',
  kid: string,
  options: { sign?: boolean; withAlg?: boolean } = {},
): Promise<Record<string, unknown>> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true, crv: alg === 'EdDSA' ? 'Ed25519' : undefined });
  const jwk: Record<string, unknown> = { ...(await exportJWK(privateKey)), kid };
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
