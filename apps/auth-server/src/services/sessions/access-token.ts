// Access tokens (reference §3.1) and the token response (§1.4). Claims are recomputed from the
// database rows on every issue, so metadata changes show up after a refresh.
import type { Deps } from '../../deps';
import type { IdentityRow, UserRow } from '../../queries/columns';
import { findFactorsByUserId, type FactorRow } from '../../queries/mfa';
import { serializeTokenResponse, serializeUser, type TokenResponseJson } from '../../serialize';
import { customClaims } from '../hooks/custom-access-token';

export interface AmrEntry {
  method: string;
  timestamp: number;
}

function metadata(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function accessTokenClaims(
  user: UserRow,
  session: { id: string; aal: string | null; oauth_client_id?: string | null; scopes?: string | null },
  amr: AmrEntry[],
): Record<string, unknown> {
  // A session of an OAuth client (Keyzone as the authorization server) says whose it is and what it may do.
  const oauth = session.oauth_client_id ? { client_id: session.oauth_client_id, scope: session.scopes ?? '' } : {};
  return {
    aud: user.aud ?? '',
    sub: user.id,
    email: user.email ?? '',
    phone: user.phone ?? '',
    app_metadata: metadata(user.raw_app_meta_data),
    user_metadata: metadata(user.raw_user_meta_data),
    role: user.role ?? '',
    aal: session.aal ?? 'aal1',
    amr,
    session_id: session.id,
    is_anonymous: user.is_anonymous === true,
    ...oauth,
  };
}

/** Signs the access token and builds the full token response for an existing session. */
export async function tokenResponse(
  deps: Pick<Deps, 'jwt' | 'config' | 'clock' | 'db' | 'log'>,
  input: {
    user: UserRow;
    identities: IdentityRow[];
    session: { id: string; aal: string | null; oauth_client_id?: string | null; scopes?: string | null };
    amr: AmrEntry[];
    refreshToken: string;
    weakPassword?: { message: string; reasons: string[] };
    /** The user's factors when the caller's read already has them (saves a query on the hot paths). */
    factors?: FactorRow[];
    /** How this token was earned, for the custom access token hook: the newest AMR method unless given (token_refresh). */
    method?: string;
  },
): Promise<TokenResponseJson> {
  const issuedAt = deps.clock.now();
  let expiresIn = deps.config.jwt.exp;
  const claims = accessTokenClaims(input.user, input.session, input.amr);
  let signed: Promise<string>;
  if (deps.config.hooks.customAccessToken) {
    // The hook sees the claims as they will be signed (iat, exp, iss included) and may change any of them.
    const final = await customClaims(deps, { userId: input.user.id, claims, issuedAt, expiresIn, method: input.method ?? input.amr[0]?.method ?? 'password' });
    expiresIn = final.exp - Math.floor(issuedAt.getTime() / 1000);
    signed = deps.jwt.sign(final, { expiresInSeconds: final.exp - final.iat, now: new Date(final.iat * 1000) });
  } else {
    signed = deps.jwt.sign(claims, { expiresInSeconds: expiresIn, now: issuedAt });
  }
  // The user's factors travel with every session: auth-js reads them for the next assurance level.
  const [accessToken, factors] = await Promise.all([signed, input.factors ?? findFactorsByUserId(deps.db, input.user.id)]);
  return serializeTokenResponse({
    accessToken,
    expiresIn,
    issuedAt,
    refreshToken: input.refreshToken,
    user: serializeUser(input.user, input.identities, factors),
    weakPassword: input.weakPassword,
  });
}
