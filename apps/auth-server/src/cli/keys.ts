// `node dist/main.js keys generate [--alg RS256|ES256|EdDSA]`: prints a JWK set for JWT_KEYS with one new
// signing key (RS256 by default: every JWT library verifies it). To rotate, put the new set's key first and
// keep the old key in the array with key_ops ["verify"]: tokens it signed stay valid until they expire, and
// the JWKS publishes both.
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { parseCommand, UsageError } from '@keyzone/config/cli';

export const KEYS_USAGE = `usage: main.js keys generate [--alg RS256|ES256|EdDSA]
  prints a JWK set with one new private signing key, for AUTH_JWT_KEYS
  --alg   the key's algorithm (default RS256)`;
export const KEY_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHMS)[number];

/** The key algorithm, or undefined for --help; throws a UsageError for anything else. */
export function parseKeysArgs(args: string[]): { alg: KeyAlgorithm } | undefined {
  const parsed = parseCommand(args, {
    usage: KEYS_USAGE, options: { alg: { type: 'string' } }, positionals: { count: 1, describe: 'the sub-command: keys generate' },
  });
  if (parsed.help) return undefined;
  if (parsed.positionals[0] !== 'generate') throw new UsageError(KEYS_USAGE, [`unknown sub-command ${JSON.stringify(parsed.positionals[0])}`]);
  const alg = parsed.values.alg ?? 'RS256';
  if (!(KEY_ALGORITHMS as readonly string[]).includes(alg)) throw new UsageError(KEYS_USAGE, [`--alg: one of ${KEY_ALGORITHMS.join(', ')}`]);
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

/** `keys generate`: the new key set on stdout. */
export function runKeys(args: string[]): void {
  const parsed = parseKeysArgs(args);
  console.log(parsed ? JSON.stringify([generateSigningJwk(parsed.alg)]) : KEYS_USAGE);
}
