// OpenID Connect ID tokens (Core §2, §3.1.3.6): signed with the server's asymmetric key (config refuses an
// HS256-only setup), audience the client, at_hash binding the access token issued with it.
import { createHash } from 'node:crypto';
import type { Deps } from '../../deps';
import type { UserRow } from '../../queries/columns';
import { scopedClaims } from './claims';
import { oauthIssuer } from './metadata';

const ID_TOKEN_SECONDS = 3600;

/** Left half of the access token's hash, with the hash of the signing algorithm (SHA-512 for Ed25519). */
export function accessTokenHash(accessToken: string, algorithm: string): string {
  const digest = createHash(algorithm === 'EdDSA' ? 'sha512' : 'sha256').update(accessToken, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

export async function signIdToken(
  deps: Pick<Deps, 'jwt' | 'config' | 'clock'>,
  input: { user: UserRow; clientId: string; scopes: string[]; nonce: string | null; authTime: Date; accessToken: string },
): Promise<string> {
  const now = deps.clock.now();
  return deps.jwt.sign(
    {
      iss: oauthIssuer(deps.config),
      sub: input.user.id,
      aud: input.clientId,
      auth_time: Math.floor(input.authTime.getTime() / 1000),
      ...(input.nonce ? { nonce: input.nonce } : {}),
      at_hash: accessTokenHash(input.accessToken, deps.jwt.algorithm),
      client_id: input.clientId,
      ...scopedClaims(input.user, input.scopes, 'id_token'),
    },
    { expiresInSeconds: ID_TOKEN_SECONDS, now },
  );
}
