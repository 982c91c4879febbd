// The only code that knows the wire shapes of a user, an identity and a token response
// (reference §1.4 and §4). Field order follows GoTrue's serialization; `?` fields are omitted
// when null. Secrets (encrypted_password, *_token columns) are never read here.
import type { IdentityRow, UserRow } from './queries/columns';
import type { FactorRow } from './queries/mfa';
import type { CustomProviderRow } from './queries/custom-oauth-providers';

export interface IdentityJson {
  identity_id: string;
  id: string;
  user_id: string;
  identity_data?: Record<string, unknown>;
  provider: string;
  last_sign_in_at?: string;
  created_at: string;
  updated_at: string;
  email?: string;
}

export type UserJson = Record<string, unknown> & { id: string; identities: IdentityJson[] };

export interface TokenResponseJson {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: UserJson;
  weak_password?: { message: string; reasons: string[] };
  /** The provider's tokens after an external sign-in (PKCE exchange, id_token grant). */
  provider_token?: string;
  provider_refresh_token?: string;
}

export function timestamp(value: Date | string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  const date = value instanceof Date ? value : new Date(value);
  return date.toISOString();
}

function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined && value !== null && value !== '') target[key] = value;
}

function jsonObject(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    try {
      return jsonObject(JSON.parse(value));
    } catch {
      return {};
    }
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function serializeIdentity(row: IdentityRow): IdentityJson {
  const out: Record<string, unknown> = { identity_id: row.id, id: row.provider_id, user_id: row.user_id };
  if (row.identity_data !== null && row.identity_data !== undefined) out.identity_data = jsonObject(row.identity_data);
  out.provider = row.provider;
  put(out, 'last_sign_in_at', timestamp(row.last_sign_in_at));
  out.created_at = timestamp(row.created_at);
  out.updated_at = timestamp(row.updated_at);
  put(out, 'email', row.email);
  return out as unknown as IdentityJson;
}

/** User JSON, §4. `identities` is always an array; pass [] for the enumeration-protected fake user. */
/** A factor as GET /user and the admin API show it (never its secret). */
export interface FactorJson {
  id: string;
  friendly_name: string;
  factor_type: string;
  status: string;
  created_at: string | undefined;
  updated_at: string | undefined;
  last_challenged_at?: string;
  phone?: string;
}

export function serializeFactor(factor: FactorRow): FactorJson {
  const out: FactorJson = {
    id: factor.id,
    friendly_name: factor.friendly_name ?? '',
    factor_type: factor.factor_type,
    status: factor.status,
    created_at: timestamp(factor.created_at),
    updated_at: timestamp(factor.updated_at),
  };
  const challenged = timestamp(factor.last_challenged_at);
  if (challenged) out.last_challenged_at = challenged;
  if (factor.phone) out.phone = factor.phone;
  return out;
}

export function serializeUser(user: UserRow, identities: IdentityRow[], factors: FactorRow[] = []): UserJson {
  const out: Record<string, unknown> = {
    id: user.id,
    aud: user.aud ?? '',
    role: user.role ?? '',
    email: user.email ?? '',
  };
  put(out, 'email_confirmed_at', timestamp(user.email_confirmed_at));
  put(out, 'invited_at', timestamp(user.invited_at));
  out.phone = user.phone ?? '';
  put(out, 'phone_confirmed_at', timestamp(user.phone_confirmed_at));
  put(out, 'confirmation_sent_at', timestamp(user.confirmation_sent_at));
  put(out, 'confirmed_at', timestamp(user.confirmed_at));
  put(out, 'recovery_sent_at', timestamp(user.recovery_sent_at));
  put(out, 'new_email', user.email_change);
  put(out, 'email_change_sent_at', timestamp(user.email_change_sent_at));
  put(out, 'new_phone', user.phone_change);
  put(out, 'phone_change_sent_at', timestamp(user.phone_change_sent_at));
  put(out, 'reauthentication_sent_at', timestamp(user.reauthentication_sent_at));
  put(out, 'last_sign_in_at', timestamp(user.last_sign_in_at));
  out.app_metadata = jsonObject(user.raw_app_meta_data);
  out.user_metadata = jsonObject(user.raw_user_meta_data);
  out.identities = identities.map(serializeIdentity);
  // GoTrue omits the list when the user has no factors; auth-js reads it for the next assurance level.
  if (factors.length > 0) out.factors = factors.map(serializeFactor);
  out.created_at = timestamp(user.created_at);
  out.updated_at = timestamp(user.updated_at);
  put(out, 'banned_until', timestamp(user.banned_until));
  put(out, 'deleted_at', timestamp(user.deleted_at));
  out.is_anonymous = user.is_anonymous === true;
  return out as UserJson;
}

export function serializeTokenResponse(input: {
  accessToken: string;
  expiresIn: number;
  issuedAt: Date;
  refreshToken: string;
  user: UserJson;
  weakPassword?: { message: string; reasons: string[] };
}): TokenResponseJson {
  const out: TokenResponseJson = {
    access_token: input.accessToken,
    token_type: 'bearer',
    expires_in: input.expiresIn,
    expires_at: Math.floor(input.issuedAt.getTime() / 1000) + input.expiresIn,
    refresh_token: input.refreshToken,
    user: input.user,
  };
  if (input.weakPassword) out.weak_password = input.weakPassword;
  return out;
}

/** A custom OAuth/OIDC provider as GoTrue answers it: never the client secret; per-type fields only when set. */
export function serializeCustomProvider(row: CustomProviderRow): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: row.id,
    provider_type: row.provider_type,
    identifier: row.identifier,
    name: row.name,
    client_id: row.client_id,
    acceptable_client_ids: row.acceptable_client_ids,
    scopes: row.scopes,
    pkce_enabled: row.pkce_enabled,
    attribute_mapping: row.attribute_mapping,
    custom_claims_allowlist: row.custom_claims_allowlist,
    authorization_params: row.authorization_params,
    enabled: row.enabled,
    email_optional: row.email_optional,
    skip_nonce_check: row.skip_nonce_check,
  };
  for (const field of ['issuer', 'discovery_url', 'authorization_url', 'token_url', 'userinfo_url', 'jwks_uri'] as const) {
    if (row[field] !== null) out[field] = row[field];
  }
  if (row.cached_discovery) out.discovery_document = row.cached_discovery;
  out.created_at = new Date(row.created_at).toISOString();
  out.updated_at = new Date(row.updated_at).toISOString();
  return out;
}
