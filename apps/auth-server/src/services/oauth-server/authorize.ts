// The authorization code flow up to the code: GET /oauth/authorize checks the client and its exact redirect URI
// (never redirecting anywhere else), stores the request and sends the browser to the sign-in and consent page;
// GET /oauth/authorizations/<id> ties the request to the signed-in user (or approves at once when an earlier
// consent covers the scopes); POST …/consent approves or denies. Nothing is kept in memory: every step reads and
// locks the row, so any instance can serve any step. (GoTrue's oauthserver/authorize.go, with PKCE S256 required.)
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Deps } from '../../deps';
import { ErrorCode, badRequest, notFound } from '../../errors';
import type { SessionRow, UserRow } from '../../queries/columns';
import {
  insertOAuthAuthorization, lockOAuthAuthorization, updateOAuthAuthorization, type OAuthAuthorizationRow,
} from '../../queries/oauth-authorizations';
import { findOAuthClient } from '../../queries/oauth-clients';
import { findActiveConsent, upsertConsent } from '../../queries/oauth-consents';
import type { Executor } from '../../queries/users';
import { isUuid } from '../../uuid';
import { redirectUrisOf } from './clients';
import { authorizationPageUrl } from './metadata';
import { coversAll, parseScopes, unsupportedScope } from './scopes';

export interface AuthorizeRequest {
  client_id?: string;
  redirect_uri?: string;
  response_type?: string;
  scope?: string;
  state?: string;
  resource?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  nonce?: string;
}

export interface AuthorizationDetails {
  authorization_id: string;
  redirect_uri: string;
  client: { id: string; name?: string; uri?: string; logo_uri?: string };
  user: { id: string; email?: string };
  scope: string;
}

const invalid = (message: string) => badRequest(ErrorCode.validation_failed, message);
const authorizationNotFound = () => notFound(ErrorCode.oauth_authorization_not_found, 'authorization not found');

/** base64url of SHA-256: how authorization codes are stored and how S256 turns a verifier into a challenge. */
export function sha256Base64Url(value: string): string {
  return createHash('sha256').update(value, 'ascii').digest('base64url');
}

/** The redirect URI with `params` added to its query (its own query parameters stay). */
export function redirectWith(redirectUri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value) url.searchParams.set(name, value);
  return url.toString();
}

function errorRedirect(redirectUri: string, error: string, description: string, state: string | undefined | null): string {
  return redirectWith(redirectUri, { error, error_description: description, state });
}

/** The problem with the parameters checked after the client and redirect URI are known good (sent back by redirect). */
function remainingProblem(deps: Pick<Deps, 'config'>, p: AuthorizeRequest): { scope: string } | { problem: string } {
  if ((p.response_type || 'code') !== 'code') return { problem: 'only response_type=code is supported' };
  const scopes = parseScopes(p.scope || deps.config.oauthServer.defaultScope);
  if (scopes.length === 0) return { problem: 'scope parameter cannot be empty' };
  const unknown = unsupportedScope(scopes);
  if (unknown) return { problem: `unsupported scope: ${unknown}` };
  if (p.resource) {
    let url: URL | undefined;
    try {
      url = new URL(p.resource);
    } catch {
      url = undefined;
    }
    if (!url) return { problem: 'resource must be an absolute URI' };
    if (p.resource.includes('#')) return { problem: 'resource must not include a fragment component' };
    if (url.search !== '') return { problem: 'resource must not include a query component' };
  }
  if (!p.code_challenge || !p.code_challenge_method) return { problem: 'PKCE flow requires both code_challenge and code_challenge_method' };
  // OAuth 2.1 §7.5.2: plain offers nothing once the authorization request is seen; S256 only.
  if (p.code_challenge_method !== 'S256') return { problem: "code_challenge_method must be 'S256'" };
  if (!/^[A-Za-z0-9_-]{43}$/.test(p.code_challenge)) return { problem: 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)' };
  if (p.state && p.state.length > 4096) return { problem: 'state cannot exceed 4096 characters' };
  if (p.nonce && p.nonce.length > 255) return { problem: 'nonce cannot exceed 255 characters' };
  return { scope: scopes.join(' ') };
}

/** GET /oauth/authorize → the URL the browser goes to next (the consent page, or the client with an error). */
export async function startAuthorization(deps: Pick<Deps, 'db' | 'config' | 'clock'>, p: AuthorizeRequest): Promise<string> {
  // Until the client and the redirect URI are known good, errors are answered here, never redirected.
  if (!p.client_id) throw invalid('client_id is required');
  if (!p.redirect_uri) throw invalid('redirect_uri is required');
  if (!isUuid(p.client_id)) throw badRequest(ErrorCode.oauth_client_not_found, 'invalid client_id format');
  const client = await findOAuthClient(deps.db, p.client_id);
  if (!client) throw badRequest(ErrorCode.oauth_client_not_found, 'invalid client_id');
  // Exact string match (OAuth 2.1 §4.1.3): no prefixes, no normalisation.
  if (!redirectUrisOf(client).includes(p.redirect_uri)) throw invalid('invalid redirect_uri');
  if (!client.grant_types.split(',').includes('authorization_code')) {
    return errorRedirect(p.redirect_uri, 'unauthorized_client', 'client is not allowed to use the authorization code grant', p.state);
  }
  const checked = remainingProblem(deps, p);
  if ('problem' in checked) return errorRedirect(p.redirect_uri, 'invalid_request', checked.problem, p.state);

  const now = deps.clock.now();
  const authorizationId = randomBytes(24).toString('base64url');
  await insertOAuthAuthorization(deps.db, {
    id: randomUUID(),
    authorization_id: authorizationId,
    client_id: client.id,
    redirect_uri: p.redirect_uri,
    scope: checked.scope,
    state: p.state || null,
    resource: p.resource || null,
    code_challenge: p.code_challenge ?? null,
    code_challenge_method: 's256',
    nonce: p.nonce || null,
    created_at: now,
    expires_at: new Date(now.getTime() + Math.max(1, deps.config.oauthServer.authorizationTtl) * 1000),
  });
  return authorizationPageUrl(deps.config, authorizationId);
}

interface Approver {
  user: UserRow;
  session: SessionRow | undefined;
  /** The access token's amr: its newest entry is when the user last authenticated (the ID token's auth_time). */
  amr: unknown;
}

function authenticatedAt(approver: Approver, now: Date): Date {
  const stamps = Array.isArray(approver.amr)
    ? approver.amr.map((a) => (a && typeof a === 'object' ? Number((a as { timestamp?: unknown }).timestamp) : NaN)).filter(Number.isFinite)
    : [];
  if (stamps.length > 0) return new Date(Math.max(...stamps) * 1000);
  return approver.session?.created_at ? new Date(approver.session.created_at) : now;
}

/**
 * Locks the authorization and checks it can still be decided by this user. An expired one is marked so and
 * answered as not found (the mark is committed); one of another user is not found either.
 */
async function lockPending(tx: Executor, deps: Pick<Deps, 'clock'>, authorizationId: string): Promise<{ row: OAuthAuthorizationRow } | { expired: true }> {
  const row = await lockOAuthAuthorization(tx, authorizationId);
  if (!row) throw authorizationNotFound();
  if (new Date(row.expires_at).getTime() <= deps.clock.now().getTime()) {
    if (row.status === 'pending') await updateOAuthAuthorization(tx, row.id, { status: 'expired' });
    return { expired: true };
  }
  if (row.status !== 'pending') throw invalid('authorization request cannot be processed');
  return { row };
}

/** Approves: a new code (stored hashed) and the redirect carrying it and the request's state. */
async function approve(tx: Executor, deps: Pick<Deps, 'clock'>, row: OAuthAuthorizationRow, approver: Approver): Promise<string> {
  const now = deps.clock.now();
  const code = randomBytes(32).toString('base64url');
  await updateOAuthAuthorization(tx, row.id, {
    status: 'approved', approved_at: now, authorization_code: sha256Base64Url(code), auth_time: authenticatedAt(approver, now),
  });
  return redirectWith(row.redirect_uri, { code, state: row.state });
}

/** GET /oauth/authorizations/<id>: the details for the consent screen, or `{redirect_url}` when consent was given before. */
export async function authorizationDetails(
  deps: Pick<Deps, 'db' | 'clock'>,
  approver: Approver,
  authorizationId: string,
): Promise<AuthorizationDetails | { redirect_url: string }> {
  const outcome = await deps.db.transaction().execute(async (tx) => {
    const locked = await lockPending(tx, deps, authorizationId);
    if ('expired' in locked) return undefined;
    const { row } = locked;
    if (row.user_id === null) {
      await updateOAuthAuthorization(tx, row.id, { user_id: approver.user.id });
      const consent = await findActiveConsent(tx, approver.user.id, row.client_id);
      if (consent && coversAll(parseScopes(consent.scopes), parseScopes(row.scope))) {
        return { redirect_url: await approve(tx, deps, row, approver) };
      }
    } else if (row.user_id !== approver.user.id) {
      throw authorizationNotFound();
    }
    return { row, redirect_url: undefined };
  });
  if (!outcome) throw authorizationNotFound();
  if (outcome.redirect_url !== undefined) return { redirect_url: outcome.redirect_url };
  const { row } = outcome;
  const client = await findOAuthClient(deps.db, row.client_id);
  if (!client) throw authorizationNotFound();
  return {
    authorization_id: row.authorization_id,
    redirect_uri: row.redirect_uri,
    client: {
      id: client.id,
      ...(client.client_name ? { name: client.client_name } : {}),
      ...(client.client_uri ? { uri: client.client_uri } : {}),
      ...(client.logo_uri ? { logo_uri: client.logo_uri } : {}),
    },
    user: { id: approver.user.id, ...(approver.user.email ? { email: approver.user.email } : {}) },
    scope: row.scope,
  };
}

/** POST /oauth/authorizations/<id>/consent {action}: `{redirect_url}` with the code, or with error=access_denied. */
export async function decideConsent(
  deps: Pick<Deps, 'db' | 'clock'>,
  approver: Approver,
  authorizationId: string,
  action: 'approve' | 'deny',
): Promise<{ redirect_url: string }> {
  const redirect = await deps.db.transaction().execute(async (tx) => {
    const locked = await lockPending(tx, deps, authorizationId);
    if ('expired' in locked) return undefined;
    const { row } = locked;
    // Only the user who opened it decides: anyone else (or nobody yet) gets the same not found.
    if (row.user_id !== approver.user.id) throw authorizationNotFound();
    if (action === 'deny') {
      await updateOAuthAuthorization(tx, row.id, { status: 'denied' });
      return errorRedirect(row.redirect_uri, 'access_denied', 'User denied the request', row.state);
    }
    const url = await approve(tx, deps, row, approver);
    const existing = await findActiveConsent(tx, approver.user.id, row.client_id);
    const scopes = parseScopes(`${existing?.scopes ?? ''} ${row.scope}`).join(' ');
    await upsertConsent(tx, { id: randomUUID(), user_id: approver.user.id, client_id: row.client_id, scopes, granted_at: deps.clock.now() });
    return url;
  });
  if (!redirect) throw authorizationNotFound();
  return { redirect_url: redirect };
}

