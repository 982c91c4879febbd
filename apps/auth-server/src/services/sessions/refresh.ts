// The refresh_token grant: v1 rotation with reuse detection (reference §5.3).
// The session row is locked with FOR UPDATE SKIP LOCKED; when another refresh holds it we give the
// connection back, wait 10-30 ms and retry, and answer 409 conflict after 5 s in which the session did not
// change (a stuck holder; a burst of refreshes taking turns keeps changing it). A revoked token is
// accepted only when it is the parent of the session's live token and was revoked within
// SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: then the live token is returned (no new one is minted).
// A request that saw the token live (or arrived within CONCURRENT_REFRESH_WINDOW_MS of the rotation)
// and lost the lock to the refresh that revoked it is not reuse either (two tabs refreshing at
// once, issue 11): it gets that refresh's child. Any other reuse revokes the whole session
// (rotation enabled); that revocation is committed before the 400. The common case runs as one
// statement first (queries/refresh-fast.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { newRefreshToken } from '@keyzone/tokens';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode, Messages, OAuthError } from '../../errors';
import { tryFastRefresh } from '../../queries/refresh-fast';
import { lockRefreshContext, rotateRefreshToken, type RefreshContext } from '../../queries/refresh-grant';
import { findRefreshToken, revokeSessionTokens } from '../../queries/refresh-tokens';
import { sessionRowVersion } from '../../queries/sessions';
import type { Executor } from '../../queries/users';
import { tokenResponse } from './access-token';
import { isBanned } from './accounts';
import { audit, auditEntry, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import type { TokenResponseJson } from '../../serialize';

export const LOCK_WAIT_LIMIT_MS = 5000;

/**
 * The server cannot see when a client sent its request, only when it arrived. Requests of one
 * burst (two tabs, a page firing several calls) arrive spread over the time it takes to accept
 * them and find a pool connection (measured: up to half a second on a busy 2-core machine); one
 * arriving less than this after the rotation that revoked its token is taken as part of that burst.
 * Shorter than any client's refresh timer, and than the 1 s after which a replay counts as reuse.
 */
export const CONCURRENT_REFRESH_WINDOW_MS = 900;

const notValid = () => new ApiError(400, ErrorCode.validation_failed, Messages.refreshTokenNotValid);
const notFound = () => new ApiError(400, ErrorCode.refresh_token_not_found, Messages.refreshTokenNotFound);
const noSession = () => new ApiError(400, ErrorCode.session_not_found, 'Invalid Refresh Token: No Valid Session Found');
const alreadyUsed = () => new ApiError(400, ErrorCode.refresh_token_already_used, Messages.refreshTokenAlreadyUsed);

/** v1 tokens are 12+ chars; exactly 12 must be lowercase alphanumeric (GoTrue's parse rules). */
export function checkRefreshTokenFormat(token: string): void {
  if (token.length < 12 || (token.length === 12 && !/^[a-z0-9]{12}$/.test(token))) throw notValid();
}

type Attempt =
  | { kind: 'locked'; sessionVersion: string | undefined }
  | { kind: 'reuse' }
  | { kind: 'ok'; context: RefreshContext; token: string };

function toMillis(value: Date | string | null): number {
  return value === null ? 0 : new Date(value).getTime();
}

export async function refreshGrant(
  deps: Pick<Deps, 'db' | 'jwt' | 'config' | 'clock' | 'log'>,
  input: {
    refreshToken: string; client: ClientInfo; receivedAt?: Date;
    /** POST /oauth/token: the authenticated OAuth client; the session must be one issued to it (GoTrue's rule). */
    oauthClientId?: string;
  },
): Promise<TokenResponseJson> {
  checkRefreshTokenFormat(input.refreshToken);
  // When the request reached the server (its headers were read), before its body and any queueing.
  const arrivedAt = (input.receivedAt ?? deps.clock.now()).getTime();
  // The common case (live token, free session) in one statement; anything else takes the
  // transactional path below, which tells the cases apart.
  const child = newRefreshToken();
  const fast = await tryFastRefresh(deps.db, {
    token: input.refreshToken,
    child,
    at: deps.clock.now(),
    userAgent: input.client.userAgent,
    ip: input.client.ip || null,
    auditIp: input.client.ip,
    oauthClientId: input.oauthClientId ?? null,
  });
  if (fast.refreshed) {
    const done = fast.refreshed;
    const amr = done.amr.map((a) => ({ method: a.authentication_method, timestamp: Math.floor(toMillis(a.updated_at) / 1000) }));
    return tokenResponse(deps, { user: done.user, identities: done.identities, factors: done.factors, session: done.session, amr, refreshToken: child, method: 'token_refresh' });
  }
  const race = { seenLive: fast.seenLive, arrivedAt };
  // Lock waits use wall time: the injected clock may be frozen in tests. The wait is measured from the last
  // change of the session: 100 tabs refreshing at once take their turns for longer than 5 s on a busy machine.
  let giveUpAt = Date.now() + LOCK_WAIT_LIMIT_MS;
  let seenVersion: string | undefined;
  for (;;) {
    const attempt = await deps.db.transaction().execute((tx) => attemptRefresh(tx, deps, input, race));
    if (attempt.kind === 'ok') {
      const { context } = attempt;
      const amr = context.amr.map((a) => ({ method: a.authentication_method, timestamp: Math.floor(toMillis(a.updated_at) / 1000) }));
      return tokenResponse(deps, { user: context.user, identities: context.identities, session: context.session, amr, refreshToken: attempt.token, method: 'token_refresh' });
    }
    if (attempt.kind === 'reuse') throw alreadyUsed(); // the revocation is already committed
    if (attempt.sessionVersion !== seenVersion) {
      seenVersion = attempt.sessionVersion;
      giveUpAt = Date.now() + LOCK_WAIT_LIMIT_MS;
    }
    if (Date.now() >= giveUpAt) throw new ApiError(409, ErrorCode.conflict, Messages.conflict);
    await sleep(10 + Math.floor(Math.random() * 20));
  }
}

async function attemptRefresh(
  tx: Executor,
  deps: Pick<Deps, 'db' | 'config' | 'clock'>,
  input: { refreshToken: string; client: ClientInfo; oauthClientId?: string },
  race: { seenLive: boolean; arrivedAt: number },
): Promise<Attempt> {
  const context = await lockRefreshContext(deps.db, tx, input.refreshToken);
  if (!context) {
    // Nothing came back: the token is unknown, has no session, or its session is locked by another refresh.
    const token = await findRefreshToken(tx, input.refreshToken);
    if (!token) throw notFound();
    if (!token.session_id) throw noSession();
    if (!token.revoked) race.seenLive = true;
    return { kind: 'locked', sessionVersion: await sessionRowVersion(tx, token.session_id) };
  }
  const { token, session, user } = context;
  checkSessionClient(session.oauth_client_id, input.oauthClientId);
  const now = deps.clock.now();
  if (session.not_after !== null && toMillis(session.not_after) <= now.getTime()) {
    throw new ApiError(400, ErrorCode.session_expired, 'Invalid Refresh Token: Session Expired');
  }
  if (isBanned(user, now)) throw new ApiError(400, ErrorCode.user_banned, Messages.userBanned);

  const client = { user_agent: input.client.userAgent, ip: input.client.ip || null };
  const refreshed = auditEntry({ actor: user, action: AuditAction.tokenRefreshed, client: input.client, at: now });
  if (token.revoked) {
    const live = context.live;
    // This request saw the token live and lost the lock to the refresh that revoked it: two tabs
    // refreshing at once. It gets that refresh's child, like a retry within the reuse interval.
    const inFlight = race.arrivedAt - toMillis(token.updated_at) < CONCURRENT_REFRESH_WINDOW_MS;
    const lostRace = (race.seenLive || inFlight) && live?.parent === token.token;
    if (!live || (!lostRace && !withinReuseGrace(token, live, deps.config.security.refreshTokenReuseInterval, now))) {
      if (deps.config.security.refreshTokenRotationEnabled) {
        await revokeSessionTokens(tx, session.id, now);
        await audit(tx, { actor: user, action: AuditAction.tokenRevoked, client: input.client, at: now, traits: { reason: 'reuse' } });
      }
      return { kind: 'reuse' };
    }
    // The client lost the answer to its previous refresh: hand back the live child, mint nothing.
    await rotateRefreshToken(deps.db, tx, { oldTokenId: null, child: null, userId: user.id, sessionId: session.id, at: now, client, audit: [refreshed] });
    return { kind: 'ok', context, token: live.token };
  }
  const issued = newRefreshToken();
  await rotateRefreshToken(deps.db, tx, {
    oldTokenId: token.id,
    child: { token: issued, parent: token.token },
    userId: user.id,
    sessionId: session.id,
    at: now,
    client,
    audit: [auditEntry({ actor: user, action: AuditAction.tokenRevoked, client: input.client, at: now }), refreshed],
  });
  return { kind: 'ok', context, token: issued };
}

/** Only the immediate parent of the live token, and only within the interval after its revocation. */
function withinReuseGrace(
  token: RefreshContext['token'],
  live: NonNullable<RefreshContext['live']>,
  intervalSeconds: number,
  now: Date,
): boolean {
  if (live.parent !== token.token) return false;
  return now.getTime() <= toMillis(token.updated_at) + intervalSeconds * 1000;
}

/** A session issued to an OAuth client is refreshed only by that client; a first-party one only at /token. */
function checkSessionClient(sessionClient: string | null, presentedClient: string | undefined): void {
  if (sessionClient && !presentedClient) throw new OAuthError('invalid_client', 'Client authentication required for OAuth session');
  if (sessionClient && sessionClient !== presentedClient) throw new OAuthError('invalid_client', "Client does not match the session's OAuth client");
  if (!sessionClient && presentedClient) throw new OAuthError('invalid_client', 'Client authentication not allowed for non-OAuth session');
}
