// Guards for the route table (reference §1.2):
//   requireUser  – bearer access token → req.caller = {claims, token, user, session}
//   requireAdmin – bearer JWT whose role is in JWT_ADMIN_ROLES → req.caller = {claims, token}
// Missing/garbled header → 401 no_authorization; bad signature or expired → 403 bad_jwt.
import type { Request, RequestHandler } from 'express';
import { TokenError } from '@keyzone/tokens';
import type { Deps } from '../deps';
import { ApiError, ErrorCode, Messages } from '../errors';
import type { IdentityRow, SessionRow, UserRow } from '../queries/columns';
import type { FactorRow } from '../queries/mfa';
import { findSessionById } from '../queries/sessions';
import { findUserContext } from '../queries/user-context';
import { isBanned } from '../services/sessions/accounts';
import { verifyCached } from './verified-tokens';
import { clientInfo } from './client';
import type { SignedInCaller } from '../services/platform/context';
import { isUuid } from '../uuid';

export interface Caller {
  claims: Record<string, unknown>;
  token: string;
  /** Set by requireUser only. */
  user?: UserRow;
  /** The user's identities (requireUser only), loaded with the user in one query. */
  identities?: IdentityRow[];
  /** The session named by the session_id claim, when the token has one. */
  session?: SessionRow;
  /** The user's MFA factors (requireUser only), loaded with the user. */
  factors?: FactorRow[];
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set by requireUser / requireAdmin. */
      caller?: Caller;
    }
  }
}


export function bearerToken(req: Request): string | undefined {
  const match = /^bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
  return match?.[1];
}

async function verifiedClaims(
  deps: Pick<Deps, 'jwt' | 'clock'>,
  req: Request,
  options: { requireExp?: boolean } = {},
): Promise<{ claims: Readonly<Record<string, unknown>>; token: string }> {
  const token = bearerToken(req);
  if (!token) throw new ApiError(401, ErrorCode.no_authorization, Messages.noAuthorization);
  try {
    return { claims: await verifyCached(deps.jwt, token, deps.clock.now(), options), token };
  } catch (err) {
    if (err instanceof TokenError) {
      throw new ApiError(403, ErrorCode.bad_jwt, `${Messages.invalidJwt}, ${err.message}`, { cause: err });
    }
    throw err;
  }
}

/**
 * The user behind a user access token, with its live session, set on req.caller (for optional guards too).
 * A token issued to an OAuth client of Keyzone's authorization server is refused unless `oauthClients`: such a
 * client was granted scopes, not the user's account (changing the password or e-mail, approving other clients).
 */
export async function authenticateUser(deps: Pick<Deps, 'jwt' | 'clock' | 'db'>, req: Request, options: { oauthClients?: boolean } = {}): Promise<void> {
  const { claims, token } = await verifiedClaims(deps, req);
  const sub = claims.sub;
  if (typeof sub !== 'string' || sub === '') throw new ApiError(403, ErrorCode.bad_jwt, 'invalid claim: missing sub claim');
  if (!isUuid(sub)) throw new ApiError(400, ErrorCode.bad_jwt, 'invalid claim: sub claim must be a UUID');
  const sessionId = typeof claims.session_id === 'string' && claims.session_id !== '' ? claims.session_id : undefined;
  const context = await findUserContext(deps.db, sub, sessionId && isUuid(sessionId) ? sessionId : undefined);
  if (!context) throw new ApiError(403, ErrorCode.user_not_found, Messages.userFromSubNotFound);
  const { user, identities, session, factors } = context;
  if (sessionId && !session) throw new ApiError(403, ErrorCode.session_not_found, Messages.sessionNotFound);
  if (isBanned(user, deps.clock.now())) throw new ApiError(403, ErrorCode.user_banned, Messages.userBanned);
  if (session?.oauth_client_id && !options.oauthClients) {
    throw new ApiError(403, ErrorCode.bad_jwt, 'This token was issued to an OAuth client: it is not accepted here');
  }
  // An ID token (signed with the same key, naming the user, no session) tells a client who signed in; it is no
  // access token anywhere, or every client, and whoever it shows the token to, could change the user's password.
  if (claims.client_id !== undefined && session?.oauth_client_id !== claims.client_id) {
    throw new ApiError(403, ErrorCode.bad_jwt, 'This token names an OAuth client but is not its access token: it is not accepted here');
  }
  req.caller = { claims, token, user, identities, session, factors };
}

export function requireUser(deps: Pick<Deps, 'jwt' | 'clock' | 'db'>, options: { oauthClients?: boolean } = {}): RequestHandler {
  return async (req, _res, next) => {
    await authenticateUser(deps, req, options);
    next();
  };
}

/**
 * Admin: role claim in JWT_ADMIN_ROLES; sub need not be a user. A named session must still exist.
 * Like GoTrue, a service token without exp is accepted when its signature verifies (service_role
 * keys are often minted that way); AUTH_JWT_REQUIRE_EXP=true refuses them. Stricter than GoTrue: a user's session
 * token with an admin role needs AAL2 while AUTH_CONSOLE_REQUIRE_AAL2 is on (the default).
 */
export function requireAdmin(deps: Pick<Deps, 'jwt' | 'clock' | 'db' | 'config'>): RequestHandler {
  return async (req, _res, next) => {
    const { claims, token } = await verifiedClaims(deps, req, { requireExp: deps.config.jwt.requireExp });
    const role = typeof claims.role === 'string' ? claims.role : '';
    if (!deps.config.jwt.adminRoles.includes(role)) throw new ApiError(403, ErrorCode.not_admin, Messages.notAdmin);
    const sessionId = typeof claims.session_id === 'string' && isUuid(claims.session_id) ? claims.session_id : undefined;
    let session: SessionRow | undefined;
    if (sessionId) {
      session = await findSessionById(deps.db, sessionId);
      if (!session) throw new ApiError(403, ErrorCode.session_expired, 'Session has expired');
    }
    // An administrator who consents to a client gives it scopes, not the admin API (the token carries their role).
    if (session?.oauth_client_id) {
      throw new ApiError(403, ErrorCode.bad_jwt, 'This token was issued to an OAuth client: it is not accepted here');
    }
    // A signed-in administrator (a session's token, not a service key) needs their second factor while
    // AUTH_CONSOLE_REQUIRE_AAL2 is on (issue 43), so a stolen password alone is not the admin API, from the console
    // or from curl. The session row is the authority: a token minted before a factor was removed still says aal2.
    if (session && deps.config.console.requireAal2 && session.aal !== 'aal2') {
      throw new ApiError(403, ErrorCode.insufficient_aal, 'A signed-in administrator needs a second factor (AAL2) for the admin API');
    }
    req.caller = { claims, token, session };
    next();
  };
}

/** The caller set by requireUser; a programming error if the guard is missing. */
export function userOf(req: Request): {
  user: UserRow;
  identities: IdentityRow[];
  factors: FactorRow[];
  session: SessionRow | undefined;
  claims: Record<string, unknown>;
} {
  const caller = req.caller;
  if (!caller?.user) throw new Error('route is missing the requireUser guard');
  return { user: caller.user, identities: caller.identities ?? [], factors: caller.factors ?? [], session: caller.session, claims: caller.claims };
}

/** The signed-in caller with their client address, as the factor and passkey services take it. */
export function signedInCaller(deps: Pick<Deps, 'config'>, req: Request): SignedInCaller {
  const { user, session } = userOf(req);
  return { user, session, client: clientInfo(deps, req) };
}
