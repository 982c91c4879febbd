// What a client may know about the user, by the scopes granted: the ID token's and the userinfo answer's claims
// (OpenID Connect Core §5.4; GoTrue's mapping of user metadata to profile claims).
import type { UserRow } from '../../queries/columns';
import { Scope } from './scopes';

function metadataString(user: UserRow, ...names: string[]): string | undefined {
  const meta = user.raw_user_meta_data;
  if (!meta || typeof meta !== 'object' || Array.isArray(meta)) return undefined;
  for (const name of names) {
    const value = (meta as Record<string, unknown>)[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** The claims `scopes` allow, besides sub. `flavour` picks GoTrue's userinfo extras (user_metadata). */
export function scopedClaims(user: UserRow, scopes: readonly string[], flavour: 'id_token' | 'userinfo'): Record<string, unknown> {
  const claims: Record<string, unknown> = {};
  if (scopes.includes(Scope.email) && user.email) {
    claims.email = user.email;
    claims.email_verified = user.email_confirmed_at !== null;
  }
  if (scopes.includes(Scope.phone) && user.phone) {
    claims.phone_number = user.phone;
    claims.phone_number_verified = user.phone_confirmed_at !== null;
    // GoTrue's userinfo names them phone / phone_verified.
    if (flavour === 'userinfo') Object.assign(claims, { phone: user.phone, phone_verified: user.phone_confirmed_at !== null });
  }
  if (scopes.includes(Scope.profile)) {
    const name = metadataString(user, 'name', 'full_name') ?? user.email ?? undefined;
    if (name) claims.name = name;
    const picture = metadataString(user, 'picture', 'avatar_url');
    if (picture) claims.picture = picture;
    const username = metadataString(user, 'preferred_username', 'username', 'user_name');
    if (username) claims.preferred_username = username;
    if (user.updated_at) claims.updated_at = Math.floor(new Date(user.updated_at).getTime() / 1000);
    if (flavour === 'userinfo' && user.raw_user_meta_data) claims.user_metadata = user.raw_user_meta_data;
  }
  return claims;
}

/** GET /oauth/userinfo: sub, and what the session's scopes allow (a first-party session's token gets sub only). */
export function userInfo(user: UserRow, session: { scopes: string | null; oauth_client_id: string | null } | undefined): Record<string, unknown> {
  const scopes = session?.oauth_client_id ? (session.scopes ?? '').split(' ').filter(Boolean) : [];
  return { sub: user.id, ...scopedClaims(user, scopes, 'userinfo') };
}
