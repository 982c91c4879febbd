// The auth server's users on this API (issue 20). A bearer access token (or one exchanged at POST /session) is
// verified by @keyzone/tokens requireUser (JWKS cached, rotation followed), then:
//   - its auth session must still be live: GET <auth url>/user with the token answers 200. The answer is
//     trusted for `session_check_seconds` (60) per token, so a logout on the auth server ends access here
//     within a minute instead of at the token's exp (an hour by default), at most one call per token per
//     minute;
//   - its `sub` must be linked to a live DNS user (dns.user_identities), by an administrator or, with
//     auto_link_by_verified_email, at first use when the auth server shows the address confirmed by a mailed
//     link (a confirmation, recovery or invitation mail sent before it was confirmed: not an address an admin
//     marked confirmed) and exactly one live DNS user has it. Never while the auth server confirms addresses by
//     itself (/settings mailer_autoconfirm): then anyone could sign up there with a DNS admin's address;
//   - a user with a verified MFA factor must come with an aal2 token (require_aal2_with_factors, default on).
// The caller then has that DNS user's permissions. Every refusal is the same 401 to the client.
import { requireUser, type RequireUserMiddleware } from '@keyzone/tokens';
import type { DnsConfig } from '@keyzone/config';
import type { Clock } from '../../clock';
import { ApiError, MESSAGES } from '../../errors';
import type { Db } from '../../queries/db';
import { deleteLinksToGoneUsers, findLinkedUser, findLiveUserIdsByEmail, insertUserIdentity } from '../../queries/user-identities';
import type { Caller } from './caller';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_CACHED_TOKENS = 10_000;

/** The one 401 of every refused token (WWW-Authenticate names the scheme). */
export const invalidToken = (): ApiError =>
  new ApiError('missing_authentication', MESSAGES.invalidAuthentication, undefined, { headers: { 'WWW-Authenticate': 'Bearer' } });

interface AuthUser {
  id: string;
  email: string;
  /** The address was confirmed after a mail was sent to it (a proof of the mailbox, not an admin's or autoconfirm's flag). */
  confirmedByMail: boolean;
  hasVerifiedFactor: boolean;
}

const time = (value: unknown): number | undefined => (typeof value === 'string' && value !== '' ? Date.parse(value) : undefined);

/** GoTrue's user object → what this API needs to know of it. */
function authUserOf(body: Record<string, unknown>): AuthUser {
  const confirmed = time(body.email_confirmed_at);
  const mailed = [body.confirmation_sent_at, body.recovery_sent_at, body.invited_at].map(time).filter((t): t is number => t !== undefined);
  const factors = Array.isArray(body.factors) ? (body.factors as Array<{ status?: unknown }>) : [];
  return {
    id: String(body.id ?? ''),
    email: typeof body.email === 'string' ? body.email : '',
    confirmedByMail: confirmed !== undefined && mailed.some((t) => t <= confirmed),
    hasVerifiedFactor: factors.some((f) => f.status === 'verified'),
  };
}

export class AuthTokens {
  readonly verifier: RequireUserMiddleware;
  private readonly live = new Map<string, { until: number; user: AuthUser }>();
  private autoconfirm: { until: number; value: boolean } | undefined;

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
    // A password-only session of a user who set up MFA is not that user here either.
    if (this.settings.requireAal2WithFactors && user.hasVerifiedFactor && claims.aal !== 'aal2') throw invalidToken();
    let linked = await findLinkedUser(this.db, sub);
    if (!linked && this.settings.autoLinkByVerifiedEmail && user.confirmedByMail && user.email && !(await this.confirmsByItself())) {
      const matches = await findLiveUserIdsByEmail(this.db, user.email);
      if (matches.length === 1) {
        // A link to a user deleted since must not block the one who now has the address.
        await deleteLinksToGoneUsers(this.db, sub);
        await insertUserIdentity(this.db, { sub, userId: matches[0]!, linkedBy: 'verified_email', now: this.clock.now() });
        linked = await findLinkedUser(this.db, sub);
      }
    }
    if (!linked) throw invalidToken();
    return { userId: linked.user_id, groupId: linked.group_id, isAdmin: linked.is_admin, sessionId: 0 };
  }

  /**
   * Whether the auth server confirms addresses without a mail (its /settings mailer_autoconfirm), asked at most
   * once per session_check_seconds (and at least once a minute); unknown counts as yes, so auto-link fails closed.
   */
  async confirmsByItself(): Promise<boolean> {
    const now = this.clock.now().getTime();
    if (this.autoconfirm && this.autoconfirm.until > now) return this.autoconfirm.value;
    let value = true;
    try {
      const response = await fetch(`${this.settings.url}/settings`, { signal: AbortSignal.timeout(5000) });
      if (response.ok) value = ((await response.json()) as { mailer_autoconfirm?: unknown }).mailer_autoconfirm !== false;
    } catch {
      // unreachable: stays true for this check
    }
    this.autoconfirm = { until: now + Math.max(1, Math.min(this.settings.sessionCheckSeconds || 60, 60)) * 1000, value };
    return value;
  }

  /** Whether the token's auth session is still live (cached like every check); a 503 when the auth server is down. */
  async isLive(token: string): Promise<boolean> {
    return (await this.liveUser(token)) !== undefined;
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
    const user = authUserOf((await response.json()) as Record<string, unknown>);
    if (this.settings.sessionCheckSeconds > 0) {
      if (this.live.size >= MAX_CACHED_TOKENS) this.live.delete(this.live.keys().next().value as string);
      this.live.set(token, { until: now + this.settings.sessionCheckSeconds * 1000, user });
    }
    return user;
  }
}
