// `node dist/main.js keys generate [--alg RS256|ES256|EdDSA]`: prints a JWK set for JWT_KEYS with one new
// signing key (RS256 by default: every JWT library verifies it). To rotate, put the new set's key first and
// keep the old key in the array with key_ops ["verify"]: tokens it signed stay valid until they expire, and
// the JWKS publishes both.
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { parseArgs } from 'node:util';

export const KEYS_USAGE = 'usage: main.js keys generate [--alg RS256|ES256|EdDSA]';
export const KEY_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHMS)[number];

export function parseKeysArgs(args: string[]): { alg: KeyAlgorithm } {
  let parsed;
  try {
    parsed = parseArgs({ args, strict: true, allowPositionals: true, options: { alg: { type: 'string' } } });
  } catch (err) {
    throw new Error(`${KEYS_USAGE}\n  ${(err as Error).message}`);
  }
  if (parsed.positionals.length !== 1 || parsed.positionals[0] !== 'generate') throw new Error(KEYS_USAGE);
  const alg = parsed.values.alg ?? 'RS256';
  if (!(KEY_ALGORITHMS as readonly string[]).includes(alg)) throw new Error(`${KEYS_USAGE}\n  --alg: one of ${KEY_ALGORITHMS.join(', ')}`);
  return { alg: alg as KeyAlgorithm };
}

/** A new private signing JWK (with kid, alg, use and key_ops) for JWT_KEYS. */
export function generateSigningJwk(alg: KeyAlgorithm, kidPrefix = 'key'): Record<string, unknown> {
  let privateKey: KeyObject;
  if (alg === 'RS256') ({ privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 }));
  else if (alg === 'ES256') ({ privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' }));
  else ({ privateKey } = generateKeyPairSync('ed25519'));
  const kid = `${kidPrefix}-${new Date().toISOString().slice(0, 10)}-${randomBytes(4).toString('hex')}`;
  return { ...privateKey.export({ format: 'jwk' }), kid, alg, use: 'sig', key_ops: ['sign', 'verify'] };
}
