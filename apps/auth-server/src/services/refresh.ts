// The refresh_token grant: v1 rotation with reuse detection (reference §5.3).
// The session row is locked with FOR UPDATE SKIP LOCKED; when another refresh holds it we give the
// connection back, wait 10-30 ms and retry, and answer 409 conflict after 5 s. A revoked token is
// accepted only when it is the parent of the session's live token and was revoked within
// SECURITY_REFRESH_TOKEN_REUSE_INTERVAL: then the live token is returned (no new one is minted).
// Any other reuse revokes the whole session (rotation enabled); that revocation is committed
// before the 400 is returned.
import { setTimeout as sleep } from 'node:timers/promises';
import { newRefreshToken } from '@keyzone/tokens';
import type { Deps } from '../deps';
import { ApiError, ErrorCode, Messages } from '../errors';
import type { RefreshTokenRow, SessionRow, UserRow } from '../queries/columns';
import { findIdentitiesByUserId } from '../queries/identities';
import { findActiveToken, findRefreshToken, insertRefreshToken, revokeRefreshToken, revokeSessionTokens } from '../queries/refresh-tokens';
import { findAmr, lockSession, markSessionRefreshed } from '../queries/sessions';
import { findUserById } from '../queries/users';
import { tokenResponse } from './access-token';
import { isBanned } from './accounts';
import { audit, AuditAction } from './audit';
import type { ClientInfo } from './context';
import type { TokenResponseJson } from '../serialize';

export const LOCK_WAIT_LIMIT_MS = 5000;

const notValid = () => new ApiError(400, ErrorCode.validation_failed, Messages.refreshTokenNotValid);
const notFound = () => new ApiError(400, ErrorCode.refresh_token_not_found, Messages.refreshTokenNotFound);
const alreadyUsed = () => new ApiError(400, ErrorCode.refresh_token_already_used, Messages.refreshTokenAlreadyUsed);

/** v1 tokens are 12+ chars; exactly 12 must be lowercase alphanumeric (GoTrue's parse rules). */
export function checkRefreshTokenFormat(token: string): void {
  if (token.length < 12 || (token.length === 12 && !/^[a-z0-9]{12}$/.test(token))) throw notValid();
}

type Attempt =
  | { kind: 'locked' }
  | { kind: 'reuse' }
  | { kind: 'ok'; user: UserRow; session: SessionRow; token: string };

function toMillis(value: Date | string | null): number {
  return value === null ? 0 : new Date(value).getTime();
}

export async function refreshGrant(
  deps: Pick<Deps, 'db' | 'jwt' | 'config' | 'clock'>,
  input: { refreshToken: string; client: ClientInfo },
): Promise<TokenResponseJson> {
  checkRefreshTokenFormat(input.refreshToken);
  // First read outside a transaction: cheap rejection of unknown tokens.
  const first = await findRefreshToken(deps.db, input.refreshToken);
  if (!first) throw notFound();
  if (!first.session_id) throw new ApiError(400, ErrorCode.session_not_found, 'Invalid Refresh Token: No Valid Session Found');
  const sessionId = first.session_id;

  // Lock waits use wall time: the injected clock may be frozen in tests.
  const giveUpAt = Date.now() + LOCK_WAIT_LIMIT_MS;
  for (;;) {
    const attempt = await deps.db.transaction().execute((tx) => attemptRefresh(tx, deps, sessionId, input));
    if (attempt.kind === 'ok') {
      const [identities, amr] = await Promise.all([
        findIdentitiesByUserId(deps.db, attempt.user.id),
        findAmr(deps.db, attempt.session.id),
      ]);
      return tokenResponse(deps, { user: attempt.user, identities, session: attempt.session, amr, refreshToken: attempt.token });
    }
    if (attempt.kind === 'reuse') throw alreadyUsed(); // the revocation above is already committed
    if (Date.now() >= giveUpAt) {
      throw new ApiError(409, ErrorCode.conflict, Messages.conflict);
    }
    await sleep(10 + Math.floor(Math.random() * 20));
  }
}

async function attemptRefresh(
  tx: Parameters<typeof findRefreshToken>[0],
  deps: Pick<Deps, 'config' | 'clock'>,
  sessionId: string,
  input: { refreshToken: string; client: ClientInfo },
): Promise<Attempt> {
  const session = await lockSession(tx, sessionId);
  if (session === 'locked') return { kind: 'locked' };
  if (!session) throw new ApiError(400, ErrorCode.session_not_found, 'Invalid Refresh Token: No Valid Session Found');
  const now = deps.clock.now();
  if (session.not_after !== null && toMillis(session.not_after) <= now.getTime()) {
    throw new ApiError(400, ErrorCode.session_expired, 'Invalid Refresh Token: Session Expired');
  }
  // Re-read under the lock: another refresh may have rotated it meanwhile.
  const token = await findRefreshToken(tx, input.refreshToken);
  if (!token || token.session_id !== sessionId) throw notFound();
  const user = await findUserById(tx, session.user_id);
  if (!user) throw notFound();
  if (isBanned(user, now)) throw new ApiError(400, ErrorCode.user_banned, Messages.userBanned);

  let issued: string;
  if (token.revoked) {
    const live = await findActiveToken(tx, sessionId);
    if (!live || !withinReuseGrace(token, live, deps.config.security.refreshTokenReuseInterval, now)) {
      if (deps.config.security.refreshTokenRotationEnabled) {
        await revokeSessionTokens(tx, sessionId, now);
        await audit(tx, { actor: user, action: AuditAction.tokenRevoked, client: input.client, at: now, traits: { reason: 'reuse' } });
      }
      return { kind: 'reuse' };
    }
    issued = live.token ?? '';
  } else {
    await revokeRefreshToken(tx, token.id, now);
    issued = newRefreshToken();
    await insertRefreshToken(tx, { token: issued, user_id: user.id, session_id: sessionId, parent: token.token, at: now });
    await audit(tx, { actor: user, action: AuditAction.tokenRevoked, client: input.client, at: now });
  }
  await markSessionRefreshed(tx, sessionId, now, { user_agent: input.client.userAgent, ip: input.client.ip || null });
  await audit(tx, { actor: user, action: AuditAction.tokenRefreshed, client: input.client, at: now });
  return { kind: 'ok', user, session, token: issued };
}

/** Only the immediate parent of the live token, and only within the interval after its revocation. */
function withinReuseGrace(token: RefreshTokenRow, live: RefreshTokenRow, intervalSeconds: number, now: Date): boolean {
  if (live.parent !== token.token) return false;
  return now.getTime() <= toMillis(token.updated_at) + intervalSeconds * 1000;
}
