// Kysely table types for schema `auth` (GoTrue-compatible, reference §5). Query code names tables
// 'auth.users', 'auth.sessions', ...; with DB_NAMESPACE the connect() plugin adds the prefix.
// Timestamps are timestamptz → Date. int8 (bigserial) comes back as a string on both drivers.
// Nullable columns are optional on insert; Generated<> marks columns with a database default.
import type { ColumnType, Generated, GeneratedAlways } from 'kysely';

export type JsonObject = Record<string, unknown>;
/** jsonb: objects read back parsed; on write pass an object (or a JSON string, required for arrays on pg). */
export type Jsonb<T = JsonObject> = ColumnType<T, T | string, T | string>;
/** jsonb with a database default ('{}'): optional on insert. */
export type JsonbWithDefault<T = JsonObject> = ColumnType<T, T | string | undefined, T | string>;
export type Timestamp = ColumnType<Date, Date | string, Date | string>;
export type CreatedAt = ColumnType<Date, Date | string | undefined, Date | string>;

export type AalLevel = 'aal1' | 'aal2' | 'aal3';
export type FactorType = 'totp' | 'webauthn' | 'phone' | 'recovery_code';
export type FactorStatus = 'unverified' | 'verified';
export type CodeChallengeMethod = 's256' | 'plain';
export type OneTimeTokenType =
  | 'confirmation_token'
  | 'reauthentication_token'
  | 'recovery_token'
  | 'email_change_token_new'
  | 'email_change_token_current'
  | 'phone_change_token';

export interface UsersTable {
  instance_id: Generated<string | null>; // nil UUID by default
  id: Generated<string>; // uuid, gen_random_uuid() when omitted
  aud: string | null;
  role: string | null;
  email: string | null; // unique among is_sso_user = false (users_email_partial_key)
  encrypted_password: string | null;
  email_confirmed_at: Timestamp | null;
  invited_at: Timestamp | null;
  confirmation_token: Generated<string | null>; // '' by default
  confirmation_sent_at: Timestamp | null;
  recovery_token: Generated<string | null>;
  recovery_sent_at: Timestamp | null;
  email_change_token_new: Generated<string | null>;
  email_change: Generated<string | null>;
  email_change_sent_at: Timestamp | null;
  email_change_token_current: Generated<string | null>;
  email_change_confirm_status: Generated<number | null>; // 0..2
  last_sign_in_at: Timestamp | null;
  raw_app_meta_data: JsonbWithDefault; // '{}' by default
  raw_user_meta_data: JsonbWithDefault;
  is_super_admin: boolean | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
  phone: string | null; // unique when not null/'' (users_phone_key)
  phone_confirmed_at: Timestamp | null;
  phone_change: Generated<string | null>;
  phone_change_token: Generated<string | null>;
  phone_change_sent_at: Timestamp | null;
  confirmed_at: GeneratedAlways<Date | null>; // least(email_confirmed_at, phone_confirmed_at)
  reauthentication_token: Generated<string | null>;
  reauthentication_sent_at: Timestamp | null;
  is_sso_user: Generated<boolean>;
  deleted_at: Timestamp | null;
  is_anonymous: Generated<boolean>;
  banned_until: Timestamp | null;
}

export interface IdentitiesTable {
  id: Generated<string>; // uuid (the JSON's identity_id)
  provider_id: string; // the provider's user id (the JSON's id); unique with provider
  user_id: string;
  identity_data: Jsonb;
  provider: string;
  last_sign_in_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
  email: GeneratedAlways<string | null>; // lower(identity_data->>'email')
}

export interface SessionsTable {
  id: Generated<string>;
  user_id: string;
  created_at: CreatedAt;
  updated_at: CreatedAt;
  factor_id: string | null;
  aal: AalLevel | null;
  not_after: Timestamp | null;
  refreshed_at: Timestamp | null;
  user_agent: string | null;
  ip: string | null; // inet
  tag: string | null;
  oauth_client_id: string | null; // the OAuth client the session was issued to (migration 202611280300); null: first-party
  scopes: string | null; // the OAuth scopes granted, space-separated; null: first-party
}

export interface RefreshTokensTable {
  instance_id: Generated<string | null>;
  id: Generated<string>; // bigserial, as a string
  token: string | null; // unique (refresh_tokens_token_unique)
  user_id: string | null; // varchar, as in GoTrue
  revoked: Generated<boolean | null>; // false by default
  parent: string | null; // token string of the predecessor
  session_id: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface AuditLogEntriesTable {
  instance_id: Generated<string | null>;
  id: Generated<string>;
  payload: Jsonb | null; // json: {actor_id, actor_username, action, log_type, traits?}
  created_at: CreatedAt;
  ip_address: Generated<string>;
}

export interface FlowStateTable {
  id: Generated<string>;
  user_id: string | null;
  auth_code: string | null;
  code_challenge_method: CodeChallengeMethod | null;
  code_challenge: string | null;
  provider_type: string;
  provider_access_token: string | null;
  provider_refresh_token: string | null;
  authentication_method: string;
  auth_code_issued_at: Timestamp | null;
  invite_token: string | null;
  referrer: string | null;
  linking_target_id: string | null;
  email_optional: Generated<boolean>;
  provider_code_verifier: string | null;
  browser_binding: string | null; // SHA-256 of the flow's browser cookie (migration 202611260200); null: not bound
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface OneTimeTokensTable {
  id: Generated<string>;
  user_id: string; // unique with token_type
  token_type: OneTimeTokenType;
  token_hash: string; // hex SHA-224(identifier + otp), pkce_ prefix for PKCE
  relates_to: string; // the email or phone
  created_at: CreatedAt;
  updated_at: CreatedAt;
  failed_attempts: Generated<number>; // wrong codes entered; the token is burned at 5
}

export interface MfaFactorsTable {
  id: Generated<string>;
  user_id: string;
  friendly_name: string | null;
  factor_type: FactorType;
  status: FactorStatus;
  created_at: CreatedAt;
  updated_at: CreatedAt;
  secret: string | null;
  phone: string | null;
  last_challenged_at: Timestamp | null;
  web_authn_credential: Jsonb | null;
  web_authn_aaguid: string | null;
  last_webauthn_challenge_data: Jsonb | null;
  last_totp_step: string | number | null; // bigint
  recovery_failed_attempts: Generated<number>; // wrong recovery codes since the last success or regeneration (202611300200)
  recovery_locked_until: Timestamp | null;      // recovery code verification refused until then
}

/** One recovery code of a recovery_code factor: SHA-256 (hex) of its canonical form, used once (used_at). */
export interface MfaRecoveryCodesTable {
  id: Generated<string>;
  factor_id: string;
  code_hash: string;
  created_at: CreatedAt;
  used_at: Timestamp | null;
}

/** A nonce handed out by GET /web3/nonce; a Web3 sign-in deletes it (202611300100). */
export interface Web3NoncesTable {
  nonce: string;
  created_at: CreatedAt;
  expires_at: Timestamp;
}

export interface MfaChallengesTable {
  id: Generated<string>;
  factor_id: string;
  created_at: CreatedAt;
  verified_at: Timestamp | null;
  ip_address: string; // inet
  otp_code: string | null;
  web_authn_session_data: Jsonb | null;
  failed_attempts: Generated<number>; // wrong codes entered; the challenge is burned at 5 (migration 202611260100)
}

export interface MfaAmrClaimsTable {
  id: Generated<string>;
  session_id: string; // unique with authentication_method (upsert target)
  authentication_method: string;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

/** One row per sent email, shared by all instances, for hourly send limits. */
export interface EmailSendLogTable {
  id: Generated<string>; // bigserial, as a string
  user_id: string | null;
  kind: string; // confirmation, recovery, magiclink, invite, email_change, reauthentication, ...
  recipient: string;
  sent_at: CreatedAt;
  client: string | null; // the rate-limit key of the requester (per-client budget)
}

/** A token bucket per limit and client, shared by every instance. */
export interface RateLimitBucketsTable {
  key: string;
  tokens: number;
  updated_at: Timestamp;
}

/** A rendered message waiting for SMTP; deleted once sent. */
export interface MailOutboxTable {
  id: Generated<string>; // bigserial, as a string
  kind: string;
  recipient: string;
  envelope: Jsonb;
  created_at: CreatedAt;
  attempts: Generated<number>;
  next_attempt_at: CreatedAt;
  last_error: string | null;
}

/** SAML SSO (issue 30): a provider, its IdP, its domains, sign-ins in flight and assertions already used. */
export interface SsoProvidersTable {
  id: string;
  resource_id: string | null;
  disabled: Generated<boolean>;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface SamlAttributeMappingJson {
  keys?: Record<string, { name?: string; names?: string[]; default?: unknown; array?: boolean }>;
}

export interface SamlProvidersTable {
  id: string;
  sso_provider_id: string;
  entity_id: string;
  metadata_xml: string;
  metadata_url: string | null;
  attribute_mapping: Jsonb<SamlAttributeMappingJson> | null;
  name_id_format: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface SsoDomainsTable {
  id: string;
  sso_provider_id: string;
  domain: string;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface SamlRelayStatesTable {
  id: string;
  sso_provider_id: string;
  request_id: string; // the AuthnRequest's ID: the IdP's Response must be InResponseTo it
  for_email: string | null;
  redirect_to: string | null;
  flow_state_id: string | null; // the PKCE flow, when the client started one
  created_at: CreatedAt;
  updated_at: CreatedAt;
}

export interface SamlAssertionsUsedTable {
  sso_provider_id: string;
  assertion_id: string;
  expires_at: Timestamp; // kept until the assertion could no longer be accepted anyway
}

/** A passkey (issue 31): a discoverable WebAuthn credential that signs its user in. */
export interface WebauthnCredentialsTable {
  id: string;
  user_id: string;
  credential_id: string; // base64url, as the browser reports it
  public_key: string; // base64url of the COSE key
  sign_count: Generated<string>; // bigint
  transports: JsonbWithDefault<string[]>;
  aaguid: string | null;
  backup_eligible: Generated<boolean>;
  backed_up: Generated<boolean>;
  friendly_name: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
  last_used_at: Timestamp | null;
}

/** A passkey registration or sign-in in flight; used once. */
export interface WebauthnChallengesTable {
  id: string;
  user_id: string | null; // null for a sign-in (the credential names the user)
  kind: 'registration' | 'authentication';
  challenge: string; // base64url
  created_at: CreatedAt;
  expires_at: Timestamp;
}

export type OAuthRegistrationType = 'dynamic' | 'manual';
export type OAuthClientType = 'public' | 'confidential';
export type OAuthTokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';
export type OAuthAuthorizationStatus = 'pending' | 'approved' | 'denied' | 'expired';

/** OAuth clients of Keyzone's authorization server (migration 202611280300); id is the public client_id. */
export interface OAuthClientsTable {
  id: string;
  client_secret_hash: string | null; // base64url SHA-256 of the secret; null for public clients
  registration_type: OAuthRegistrationType;
  client_type: Generated<OAuthClientType>;
  token_endpoint_auth_method: OAuthTokenEndpointAuthMethod;
  redirect_uris: string; // comma-separated, as in GoTrue
  grant_types: string; // comma-separated
  client_name: string | null;
  client_uri: string | null;
  logo_uri: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
  deleted_at: Timestamp | null; // soft delete
}

/** An authorization request from GET /oauth/authorize until its code is exchanged (then kept for replay detection). */
export interface OAuthAuthorizationsTable {
  id: string;
  authorization_id: string; // the opaque id handed to the consent page
  client_id: string;
  user_id: string | null; // set when a signed-in user first looks at it
  redirect_uri: string;
  scope: string;
  state: string | null;
  resource: string | null; // RFC 8707
  code_challenge: string | null;
  code_challenge_method: CodeChallengeMethod | null;
  response_type: Generated<'code'>;
  status: Generated<OAuthAuthorizationStatus>;
  authorization_code: string | null; // base64url SHA-256 of the code handed out on approval
  nonce: string | null;
  auth_time: Timestamp | null; // when the approving user authenticated (the ID token's auth_time)
  created_at: CreatedAt;
  expires_at: Timestamp;
  approved_at: Timestamp | null;
  used_at: Timestamp | null; // the code was exchanged
  session_id: string | null; // the session the code issued (revoked on a replay)
}

/** What a user agreed a client may have; a consent covering the requested scopes skips the question. */
export interface OAuthConsentsTable {
  id: string;
  user_id: string; // unique with client_id
  client_id: string;
  scopes: string; // space-separated
  granted_at: CreatedAt;
  revoked_at: Timestamp | null;
}

export interface AuthDatabase {
  'auth.users': UsersTable;
  'auth.identities': IdentitiesTable;
  'auth.sessions': SessionsTable;
  'auth.refresh_tokens': RefreshTokensTable;
  'auth.audit_log_entries': AuditLogEntriesTable;
  'auth.flow_state': FlowStateTable;
  'auth.one_time_tokens': OneTimeTokensTable;
  'auth.mfa_factors': MfaFactorsTable;
  'auth.mfa_challenges': MfaChallengesTable;
  'auth.mfa_amr_claims': MfaAmrClaimsTable;
  'auth.email_send_log': EmailSendLogTable;
  'auth.rate_limit_buckets': RateLimitBucketsTable;
  'auth.mail_outbox': MailOutboxTable;
  'auth.sso_providers': SsoProvidersTable;
  'auth.saml_providers': SamlProvidersTable;
  'auth.sso_domains': SsoDomainsTable;
  'auth.saml_relay_states': SamlRelayStatesTable;
  'auth.saml_assertions_used': SamlAssertionsUsedTable;
  'auth.webauthn_credentials': WebauthnCredentialsTable;
  'auth.webauthn_challenges': WebauthnChallengesTable;
  'auth.oauth_clients': OAuthClientsTable;
  'auth.oauth_authorizations': OAuthAuthorizationsTable;
  'auth.oauth_consents': OAuthConsentsTable;
  'auth.custom_oauth_providers': CustomOAuthProvidersTable;
  'auth.mfa_recovery_codes': MfaRecoveryCodesTable;
  'auth.web3_nonces': Web3NoncesTable;
}

/** The OIDC discovery fields a custom provider keeps (GoTrue's OIDCDiscovery). */
export interface OidcDiscoveryJson {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint?: string;
  jwks_uri: string;
  scopes_supported?: string[];
  response_types_supported?: string[];
  grant_types_supported?: string[];
  subject_types_supported?: string[];
}

/** Custom OAuth 2.0 / OIDC providers of the admin API (migration 202611290100). */
export interface CustomOAuthProvidersTable {
  id: string;
  provider_type: 'oauth2' | 'oidc';
  identifier: string; // custom:<name>
  name: string;
  client_id: string;
  client_secret: string; // sealed (AES-256-GCM), never returned
  acceptable_client_ids: JsonbWithDefault<string[]>;
  scopes: JsonbWithDefault<string[]>;
  pkce_enabled: Generated<boolean>;
  attribute_mapping: JsonbWithDefault;
  custom_claims_allowlist: JsonbWithDefault<string[]>;
  authorization_params: JsonbWithDefault<Record<string, string>>;
  enabled: Generated<boolean>;
  email_optional: Generated<boolean>;
  issuer: string | null;
  discovery_url: string | null;
  skip_nonce_check: Generated<boolean>;
  cached_discovery: Jsonb<OidcDiscoveryJson> | null;
  discovery_cached_at: Timestamp | null;
  authorization_url: string | null;
  token_url: string | null;
  userinfo_url: string | null;
  jwks_uri: string | null;
  created_at: CreatedAt;
  updated_at: CreatedAt;
}
