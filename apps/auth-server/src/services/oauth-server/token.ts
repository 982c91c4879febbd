// POST /oauth/token: the authorization_code grant (a code is good once, for the client it was issued to, with the
// redirect URI and the PKCE verifier of its request; a replay ends the session the code issued) and the
// refresh_token grant (services/sessions/refresh.ts: the same rotation and reuse detection as first-party
// refreshes, bound to the client). Answers carry only the OAuth fields (and an ID token with `openid`).
import type { Deps } from '../../deps';
import { ApiError, OAuthError } from '../../errors';
import type { UserRow } from '../../queries/columns';
import { lockOAuthAuthorizationByCode, updateOAuthAuthorization } from '../../queries/oauth-authorizations';
import type { OAuthClientRow } from '../../queries/oauth-clients';
import { deleteSessionById } from '../../queries/sessions';
import { findUserById, setLastSignIn } from '../../queries/users';
import { tokenResponse } from '../sessions/access-token';
import { isBanned } from '../sessions/accounts';
import { refreshGrant } from '../sessions/refresh';
import { AmrMethod, createSession } from '../sessions/sessions';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { sha256Base64Url } from './authorize';
import { grantTypesOf } from './clients';
import { signIdToken } from './id-token';
import { parseScopes, Scope } from './scopes';

export interface OAuthTokenJson {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
  id_token?: string;
}

export interface CodeGrantInput {
  code?: string;
  redirect_uri?: string;
  code_verifier?: string;
  resource?: string;
}

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

/** The grant types this client registered; anything else is refused before any work. */
export function checkGrantAllowed(client: OAuthClientRow, grantType: string): void {
  if (grantType === '') throw new OAuthError('invalid_request', 'grant_type is required');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    throw new OAuthError('unsupported_grant_type', `Unsupported grant type: ${grantType}`);
  }
  if (!grantTypesOf(client).includes(grantType)) throw new OAuthError('unauthorized_client', `Client is not allowed to use grant type: ${grantType}`);
}

function verifierMatches(verifier: string | undefined, challenge: string | null): boolean {
  // RFC 7636 §4.1: 43-128 unreserved characters.
  if (!verifier || !challenge || !/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return false;
  return sha256Base64Url(verifier) === challenge;
}

type Exchange =
  | { kind: 'issued'; user: UserRow; session: Awaited<ReturnType<typeof createSession>>; scope: string; nonce: string | null; authTime: Date }
  | { kind: 'replayed' };

export async function authorizationCodeGrant(
  deps: Pick<Deps, 'db' | 'jwt' | 'config' | 'clock' | 'log'>,
  client: OAuthClientRow,
  input: CodeGrantInput,
  requestClient: ClientInfo,
): Promise<OAuthTokenJson> {
  if (!input.code) throw new OAuthError('invalid_request', 'code is required for authorization_code grant');
  const codeHash = sha256Base64Url(input.code);
  const exchange = await deps.db.transaction().execute(async (tx): Promise<Exchange> => {
    const now = deps.clock.now();
    const row = await lockOAuthAuthorizationByCode(tx, codeHash);
    if (!row) throw invalidGrant('Invalid authorization code');
    if (row.used_at !== null) {
      // A code seen twice was stolen or leaked: end what it issued (RFC 6749 §4.1.2; OAuth 2.1 §4.1.3).
      if (row.session_id && (await deleteSessionById(tx, row.session_id)) && row.user_id) {
        await audit(tx, { actor: { id: row.user_id, username: '' }, action: AuditAction.tokenRevoked, client: requestClient, at: now, traits: { reason: 'authorization_code_replay', client_id: row.client_id } });
      }
      return { kind: 'replayed' };
    }
    if (row.status !== 'approved') throw invalidGrant('Invalid authorization code');
    if (new Date(row.expires_at).getTime() <= now.getTime()) throw invalidGrant('Authorization code has expired');
    if (row.client_id !== client.id) throw invalidGrant('Authorization code was not issued for this client');
    if (input.resource && input.resource !== row.resource) throw invalidGrant('Authorization code resource does not match the resource parameter');
    if (input.redirect_uri && input.redirect_uri !== row.redirect_uri) throw invalidGrant('Invalid redirect_uri');
    if (!verifierMatches(input.code_verifier, row.code_challenge)) throw invalidGrant('PKCE verification failed: code verifier does not match the code challenge');
    const user = row.user_id ? await findUserById(tx, row.user_id) : undefined;
    if (!user) throw invalidGrant('User not found for authorization code');
    if (isBanned(user, now)) throw new OAuthError('access_denied', 'User is banned');
    const session = await createSession(tx, {
      user, method: AmrMethod.oauthAuthorizationCode, client: requestClient, at: now, oauth: { clientId: client.id, scopes: row.scope },
    });
    await updateOAuthAuthorization(tx, row.id, { used_at: now, session_id: session.session.id });
    await setLastSignIn(tx, user.id, now);
    await audit(tx, { actor: user, action: AuditAction.login, client: requestClient, at: now, traits: { provider_type: 'oauth_provider_authorization_code', client_id: client.id } });
    return { kind: 'issued', user, session, scope: row.scope, nonce: row.nonce, authTime: row.auth_time ? new Date(row.auth_time) : now };
  });
  if (exchange.kind === 'replayed') throw invalidGrant('Authorization code has already been used');

  const { user, session, scope } = exchange;
  const issued = await tokenResponse(deps, {
    user, identities: [], factors: [], session: session.session, amr: session.amr, refreshToken: session.refreshToken,
    method: AmrMethod.oauthAuthorizationCode,
  });
  const scopes = parseScopes(scope);
  const idToken = scopes.includes(Scope.openid)
    ? await signIdToken(deps, { user, clientId: client.id, scopes, nonce: exchange.nonce, authTime: exchange.authTime, accessToken: issued.access_token })
    : undefined;
  return {
    access_token: issued.access_token,
    token_type: 'bearer',
    expires_in: issued.expires_in,
    refresh_token: issued.refresh_token,
    scope,
    ...(idToken ? { id_token: idToken } : {}),
  };
}

export async function oauthRefreshGrant(
  deps: Pick<Deps, 'db' | 'jwt' | 'config' | 'clock' | 'log'>,
  client: OAuthClientRow,
  input: { refreshToken?: string; receivedAt?: Date },
  requestClient: ClientInfo,
): Promise<OAuthTokenJson> {
  if (!input.refreshToken) throw new OAuthError('invalid_request', 'refresh_token is required for refresh_token grant');
  let issued;
  try {
    issued = await refreshGrant(deps, { refreshToken: input.refreshToken, client: requestClient, receivedAt: input.receivedAt, oauthClientId: client.id });
  } catch (err) {
    // The first-party refresh answers a bad token with GoTrue's 400s; a client of the OAuth server reads invalid_grant.
    if (err instanceof ApiError && err.status === 400) throw invalidGrant(err.message);
    throw err;
  }
  // The scope is the one the signed token carries (a custom access token hook may have changed it).
  const claims = JSON.parse(Buffer.from(issued.access_token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { scope?: unknown };
  return {
    access_token: issued.access_token,
    token_type: 'bearer',
    expires_in: issued.expires_in,
    refresh_token: issued.refresh_token,
    scope: typeof claims.scope === 'string' ? claims.scope : '',
  };
}
