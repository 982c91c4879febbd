// For resource servers and clients, beyond GoTrue: token revocation (RFC 7009) and introspection (RFC 7662).
// Access tokens are JWTs naming their session; refresh tokens are rows of a session. Revoking either ends the
// session (so its other tokens go too, RFC 7009 §2.1), and only the client the session was issued to may do it.
// Introspection needs a confidential client; a refresh token is described only to the client that holds it.
import type { Deps } from '../../deps';
import { OAuthError } from '../../errors';
import type { OAuthClientRow } from '../../queries/oauth-clients';
import { findRefreshToken } from '../../queries/refresh-tokens';
import { deleteSessionById, findSessionById } from '../../queries/sessions';
import { findUserById } from '../../queries/users';
import type { SessionRow } from '../../queries/columns';
import { isUuid } from '../../uuid';
import { isBanned } from '../sessions/accounts';
import { oauthIssuer } from './metadata';

type Hint = 'access_token' | 'refresh_token' | undefined;

const looksLikeJwt = (token: string) => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);

async function accessTokenSession(
  deps: Pick<Deps, 'db' | 'jwt' | 'clock'>,
  token: string,
): Promise<{ claims: Record<string, unknown>; session: SessionRow } | undefined> {
  if (!looksLikeJwt(token)) return undefined;
  let claims: Record<string, unknown>;
  try {
    claims = await deps.jwt.verify(token, { now: deps.clock.now() });
  } catch {
    return undefined;
  }
  const sessionId = typeof claims.session_id === 'string' && isUuid(claims.session_id) ? claims.session_id : undefined;
  const session = sessionId ? await findSessionById(deps.db, sessionId) : undefined;
  return session ? { claims, session } : undefined;
}

async function refreshTokenSession(deps: Pick<Deps, 'db'>, token: string): Promise<SessionRow | undefined> {
  if (token.length < 12 || token.length > 255) return undefined;
  const row = await findRefreshToken(deps.db, token);
  if (!row || row.revoked || !row.session_id) return undefined;
  return findSessionById(deps.db, row.session_id);
}

/** RFC 7009: always 200 for a token that is unknown, expired or not the client's (nothing to tell, nothing done). */
export async function revokeToken(deps: Pick<Deps, 'db' | 'jwt' | 'clock'>, client: OAuthClientRow, token: string | undefined, hint: Hint): Promise<void> {
  if (!token) throw new OAuthError('invalid_request', 'token is required');
  const fromAccess = async () => (await accessTokenSession(deps, token))?.session;
  const order = hint === 'refresh_token' ? [() => refreshTokenSession(deps, token), fromAccess] : [fromAccess, () => refreshTokenSession(deps, token)];
  for (const find of order) {
    const session = await find();
    if (!session) continue;
    if (session.oauth_client_id === client.id) await deleteSessionById(deps.db, session.id);
    return;
  }
}

export async function introspectToken(
  deps: Pick<Deps, 'db' | 'jwt' | 'clock' | 'config'>,
  client: OAuthClientRow,
  token: string | undefined,
  hint: Hint,
): Promise<Record<string, unknown>> {
  if (client.client_type !== 'confidential') throw new OAuthError('invalid_client', 'Token introspection requires a confidential client', 401);
  if (!token) throw new OAuthError('invalid_request', 'token is required');
  const inactive = { active: false };
  const now = deps.clock.now();
  const asAccess = async () => {
    const found = await accessTokenSession(deps, token);
    if (!found) return undefined;
    const user = await findUserById(deps.db, found.session.user_id);
    if (!user || isBanned(user, now)) return undefined;
    const { claims } = found;
    return {
      active: true,
      token_type: 'Bearer',
      ...(typeof claims.scope === 'string' ? { scope: claims.scope } : {}),
      ...(typeof claims.client_id === 'string' ? { client_id: claims.client_id } : {}),
      sub: claims.sub,
      aud: claims.aud,
      iss: claims.iss ?? oauthIssuer(deps.config),
      exp: claims.exp,
      iat: claims.iat,
      ...(typeof claims.role === 'string' ? { role: claims.role } : {}),
      ...(typeof claims.session_id === 'string' ? { session_id: claims.session_id } : {}),
    };
  };
  const asRefresh = async () => {
    const session = await refreshTokenSession(deps, token);
    if (!session || session.oauth_client_id !== client.id) return undefined;
    if (session.not_after !== null && new Date(session.not_after).getTime() <= now.getTime()) return undefined;
    return { active: true, token_type: 'refresh_token', scope: session.scopes ?? '', client_id: client.id, sub: session.user_id, iss: oauthIssuer(deps.config) };
  };
  const order = hint === 'refresh_token' ? [asRefresh, asAccess] : [asAccess, asRefresh];
  for (const attempt of order) {
    const answer = await attempt();
    if (answer) return answer;
  }
  return inactive;
}
