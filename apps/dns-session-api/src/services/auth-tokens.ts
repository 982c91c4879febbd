// The auth server's users on this API (issue 20). A bearer access token (or one exchanged at POST /session) is
// verified by @keyzone/tokens requireUser (JWKS cached, rotation followed), then:
//   - its auth session must still be live: GET <auth url>/user with the token answers 200. The answer is
//     trusted for `session_check_seconds` (60) per token, so a logout on the auth server ends access here
//     within a minute instead of at the token's exp (an hour by default), at most one call per token per
//     minute;
//   - its `sub` must be linked to a live DNS user (dns.user_identities), by an administrator or, with
//     auto_link_by_verified_email, at first use when the auth server says the address is confirmed and exactly
//     one live DNS user has it.
// The caller then has that DNS user's permissions. Every refusal is the same 401 to the client.
import { requireUser, type RequireUserMiddleware } from '@keyzone/tokens';
import type { DnsConfig } from '@keyzone/config';
import type { Clock } from '../deps';
import { ApiError, MESSAGES } from '../errors';
import type { Db } from '../queries/db';
import { findLinkedUser, findLiveUserIdsByEmail, insertUserIdentity } from '../queries/user-identities';
import type { Caller } from './caller';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_CACHED_TOKENS = 10_000;

/** The one 401 of every refused token (WWW-Authenticate names the scheme). */
export const invalidToken = (): ApiError =>
  new ApiError('missing_authentication', MESSAGES.invalidAuthentication, undefined, { headers: { 'WWW-Authenticate': 'Bearer' } });

interface AuthUser {
  id: string;
  email: string;
  emailConfirmed: boolean;
}

export class AuthTokens {
  readonly verifier: RequireUserMiddleware;
  private readonly live = new Map<string, { until: number; user: AuthUser }>();

  constructor(
    private readonly settings: DnsConfig['auth'],
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    const common = { audience: settings.audience, issuer: settings.issuer };
    const key = settings.jwtSecret ? { secret: settings.jwtSecret } : { jwksUrl: settings.jwksUrl ?? '' };
    this.verifier = requireUser({
      ...key,
      ...common,
      onFailure: (failure, _req, _res, next) =>
        next(failure.status === 503 ? new ApiError('unavailable', 'The auth server\'s signing keys are unavailable; try again') : invalidToken()),
    });
  }

  /** The DNS caller for a verified token's claims, or a 401. */
  async callerFor(token: string, claims: Record<string, unknown>): Promise<Caller> {
    const sub = typeof claims.sub === 'string' && UUID.test(claims.sub) ? claims.sub : undefined;
    if (!sub) throw invalidToken();
    const user = await this.liveUser(token);
    if (!user || user.id !== sub) throw invalidToken();
    let linked = await findLinkedUser(this.db, sub);
    if (!linked && this.settings.autoLinkByVerifiedEmail && user.emailConfirmed && user.email) {
      const matches = await findLiveUserIdsByEmail(this.db, user.email);
      if (matches.length === 1) {
        await insertUserIdentity(this.db, { sub, userId: matches[0]!, linkedBy: 'verified_email', now: this.clock.now() });
        linked = await findLinkedUser(this.db, sub);
      }
    }
    if (!linked) throw invalidToken();
    return { userId: linked.user_id, groupId: linked.group_id, isAdmin: linked.is_admin, sessionId: 0 };
  }

  /** A token's claims (exchange at POST /session), or a 401 / 503. */
  async verify(token: string): Promise<Record<string, unknown>> {
    const result = await this.verifier.verifyToken(token);
    if ('claims' in result) return result.claims;
    throw result.failure.status === 503 ? new ApiError('unavailable', 'The auth server\'s signing keys are unavailable; try again') : invalidToken();
  }

  /** The auth server's view of the token's user while its session lives; undefined once it does not. */
  private async liveUser(token: string): Promise<AuthUser | undefined> {
    const now = this.clock.now().getTime();
    const cached = this.live.get(token);
    if (cached && cached.until > now) return cached.user;
    this.live.delete(token);
    let response: Response;
    try {
      response = await fetch(`${this.settings.url}/user`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5000) });
    } catch (err) {
      throw new ApiError('unavailable', 'The auth server did not answer; try again', undefined, { cause: err });
    }
    if (response.status === 401 || response.status === 403 || response.status === 404) return undefined;
    if (!response.ok) throw new ApiError('unavailable', `The auth server answered ${response.status}; try again`);
    const body = (await response.json()) as { id?: unknown; email?: unknown; email_confirmed_at?: unknown };
    const user: AuthUser = { id: String(body.id ?? ''), email: typeof body.email === 'string' ? body.email : '', emailConfirmed: Boolean(body.email_confirmed_at) };
    if (this.settings.sessionCheckSeconds > 0) {
      if (this.live.size >= MAX_CACHED_TOKENS) this.live.delete(this.live.keys().next().value as string);
      this.live.set(token, { until: now + this.settings.sessionCheckSeconds * 1000, user });
    }
    return user;
  }
}
