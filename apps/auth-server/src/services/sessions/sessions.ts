// Sessions: creating one at sign-in, ending them at logout. Refresh rotation is in refresh.ts.
import { randomUUID } from 'node:crypto';
import { newRefreshToken } from '@keyzone/tokens';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import type { SessionRow, UserRow } from '../../queries/columns';
import { insertRefreshToken } from '../../queries/refresh-tokens';
import { deleteSessions, insertSession, recordAmr } from '../../queries/sessions';
import type { Executor } from '../../queries/users';
import { audit, AuditAction } from '../platform/audit';
import type { AmrEntry } from './access-token';
import type { ClientInfo } from '../platform/context';

/** AMR methods (reference §3.1) used by this code; the email engineer adds otp, magiclink, ... */
export const AmrMethod = {
  password: 'password',
  anonymous: 'anonymous',
  otp: 'otp',
  magiclink: 'magiclink',
  recovery: 'recovery',
  invite: 'invite',
  emailSignup: 'email/signup',
  emailChange: 'email_change',
  oauth: 'oauth',
  ssoSaml: 'sso/saml',
  oauthAuthorizationCode: 'oauth_provider/authorization_code',
  web3: 'web3',
} as const;

export interface IssuedSession {
  session: SessionRow;
  refreshToken: string;
  amr: AmrEntry[];
}

/**
 * Creates a session with its first refresh token, inside the caller's transaction. The caller
 * signs the access token (tokenResponse) after commit.
 */
export async function createSession(
  db: Executor,
  input: {
    user: UserRow; method: string; client: ClientInfo; at: Date; /** The session ends then (a SAML SessionNotOnOrAfter). */ notAfter?: Date;
    /** A session issued to an OAuth client of Keyzone's authorization server, with the scopes granted. */
    oauth?: { clientId: string; scopes: string };
  },
): Promise<IssuedSession> {
  const session = await insertSession(db, {
    id: randomUUID(),
    user_id: input.user.id,
    aal: 'aal1',
    created_at: input.at,
    user_agent: input.client.userAgent,
    ip: input.client.ip || null,
    ...(input.notAfter ? { not_after: input.notAfter } : {}),
    ...(input.oauth ? { oauth_client_id: input.oauth.clientId, scopes: input.oauth.scopes } : {}),
  });
  await recordAmr(db, session.id, input.method, input.at);
  const refreshToken = newRefreshToken();
  await insertRefreshToken(db, { token: refreshToken, user_id: input.user.id, session_id: session.id, parent: null, at: input.at });
  return { session, refreshToken, amr: [{ method: input.method, timestamp: Math.floor(input.at.getTime() / 1000) }] };
}

export type LogoutScope = 'global' | 'local' | 'others';

/** POST /logout: deletes sessions (refresh tokens and AMR claims cascade) and audits it. */
export async function logout(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { user: UserRow; sessionId: string | undefined; scope: LogoutScope; client: ClientInfo },
): Promise<void> {
  const at = deps.clock.now();
  await deps.db.transaction().execute(async (tx) => {
    if (input.scope === 'global' || !input.sessionId) {
      if (input.scope === 'others' && !input.sessionId) {
        throw new ApiError(400, ErrorCode.validation_failed, 'scope=others needs a token with a session_id');
      }
      await deleteSessions(tx, input.user.id);
    } else if (input.scope === 'local') {
      await deleteSessions(tx, input.user.id, { only: input.sessionId });
    } else {
      await deleteSessions(tx, input.user.id, { except: input.sessionId });
    }
    await audit(tx, { actor: input.user, action: AuditAction.logout, client: input.client, at, traits: { scope: input.scope } });
  });
}
