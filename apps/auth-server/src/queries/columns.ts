// Named column lists and the row shapes they produce. Queries select these lists, never `*`,
// so a new column in a migration cannot leak into a response by accident.

export const userColumns = [
  'id',
  'aud',
  'role',
  'email',
  'email_confirmed_at',
  'invited_at',
  'phone',
  'phone_confirmed_at',
  'confirmation_sent_at',
  'confirmed_at',
  'recovery_sent_at',
  'email_change',
  'email_change_sent_at',
  'phone_change',
  'phone_change_sent_at',
  'reauthentication_sent_at',
  'last_sign_in_at',
  'raw_app_meta_data',
  'raw_user_meta_data',
  'created_at',
  'updated_at',
  'banned_until',
  'deleted_at',
  'is_anonymous',
  'is_sso_user',
] as const;

type Timestamp = Date | string | null;

export interface UserRow {
  id: string;
  aud: string | null;
  role: string | null;
  email: string | null;
  email_confirmed_at: Timestamp;
  invited_at: Timestamp;
  phone: string | null;
  phone_confirmed_at: Timestamp;
  confirmation_sent_at: Timestamp;
  confirmed_at: Timestamp;
  recovery_sent_at: Timestamp;
  email_change: string | null;
  email_change_sent_at: Timestamp;
  phone_change: string | null;
  phone_change_sent_at: Timestamp;
  reauthentication_sent_at: Timestamp;
  last_sign_in_at: Timestamp;
  raw_app_meta_data: unknown;
  raw_user_meta_data: unknown;
  created_at: Timestamp;
  updated_at: Timestamp;
  banned_until: Timestamp;
  deleted_at: Timestamp;
  is_anonymous: boolean;
  is_sso_user: boolean;
}

export const identityColumns = [
  'id',
  'provider_id',
  'user_id',
  'identity_data',
  'provider',
  'last_sign_in_at',
  'created_at',
  'updated_at',
  'email',
] as const;

export interface IdentityRow {
  id: string;
  provider_id: string;
  user_id: string;
  identity_data: unknown;
  provider: string;
  last_sign_in_at: Timestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  email: string | null;
}

export const sessionColumns = ['id', 'user_id', 'created_at', 'updated_at', 'aal', 'not_after', 'refreshed_at', 'oauth_client_id', 'scopes'] as const;

export interface SessionRow {
  id: string;
  user_id: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  aal: string | null;
  not_after: Timestamp;
  refreshed_at: Timestamp;
  /** The OAuth client the session was issued to by Keyzone's authorization server; null: a first-party session. */
  oauth_client_id: string | null;
  /** The OAuth scopes granted (space-separated); null: a first-party session. */
  scopes: string | null;
}

export const refreshTokenColumns = ['id', 'token', 'user_id', 'revoked', 'parent', 'session_id', 'created_at', 'updated_at'] as const;

export interface RefreshTokenRow {
  id: string | number | bigint;
  token: string | null;
  user_id: string | null;
  revoked: boolean | null;
  parent: string | null;
  session_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}
