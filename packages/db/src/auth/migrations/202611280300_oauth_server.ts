// Keyzone as an OAuth 2.1 / OpenID Connect authorization server (issue 40), in GoTrue's tables: the registered
// clients, the authorization requests in flight (and the codes they handed out), the consents users gave, and
// the OAuth client and scopes a session was issued for. Unlike GoTrue, a client secret and an authorization code
// are stored only as SHA-256 hashes, and a used code keeps its row (used_at, session_id) so a replay can revoke
// the session it issued.
import type { Kysely } from 'kysely';
import { createEnum, execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { n, t }: AuthNames): Promise<void> {
  await execAll(db, [
    createEnum('auth.oauth_registration_type', ['dynamic', 'manual']),
    createEnum('auth.oauth_client_type', ['public', 'confidential']),
    createEnum('auth.oauth_authorization_status', ['pending', 'approved', 'denied', 'expired']),
    createEnum('auth.oauth_response_type', ['code']),

    `create table ${t('oauth_clients')} (
      id uuid not null,
      client_secret_hash text,
      registration_type auth.oauth_registration_type not null,
      client_type auth.oauth_client_type not null default 'confidential',
      token_endpoint_auth_method text not null,
      redirect_uris text not null,
      grant_types text not null,
      client_name text,
      client_uri text,
      logo_uri text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      deleted_at timestamptz,
      constraint ${n('oauth_clients_pkey')} primary key (id),
      constraint ${n('oauth_clients_client_name_length')} check (char_length(client_name) <= 1024),
      constraint ${n('oauth_clients_client_uri_length')} check (char_length(client_uri) <= 2048),
      constraint ${n('oauth_clients_logo_uri_length')} check (char_length(logo_uri) <= 2048),
      constraint ${n('oauth_clients_token_endpoint_auth_method_check')}
        check (token_endpoint_auth_method in ('none', 'client_secret_basic', 'client_secret_post'))
    )`,
    `create index ${n('oauth_clients_deleted_at_idx')} on ${t('oauth_clients')} (deleted_at)`,

    `create table ${t('oauth_authorizations')} (
      id uuid not null,
      authorization_id text not null,
      client_id uuid not null constraint ${n('oauth_authorizations_client_id_fkey')} references ${t('oauth_clients')} (id) on delete cascade,
      user_id uuid constraint ${n('oauth_authorizations_user_id_fkey')} references ${t('users')} (id) on delete cascade,
      redirect_uri text not null,
      scope text not null,
      state text,
      resource text,
      code_challenge text,
      code_challenge_method auth.code_challenge_method,
      response_type auth.oauth_response_type not null default 'code',
      status auth.oauth_authorization_status not null default 'pending',
      authorization_code text,
      nonce text,
      auth_time timestamptz,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      approved_at timestamptz,
      used_at timestamptz,
      session_id uuid,
      constraint ${n('oauth_authorizations_pkey')} primary key (id),
      constraint ${n('oauth_authorizations_authorization_id_key')} unique (authorization_id),
      constraint ${n('oauth_authorizations_authorization_code_key')} unique (authorization_code),
      constraint ${n('oauth_authorizations_redirect_uri_length')} check (char_length(redirect_uri) <= 2048),
      constraint ${n('oauth_authorizations_scope_length')} check (char_length(scope) <= 4096),
      constraint ${n('oauth_authorizations_state_length')} check (char_length(state) <= 4096),
      constraint ${n('oauth_authorizations_resource_length')} check (char_length(resource) <= 2048),
      constraint ${n('oauth_authorizations_code_challenge_length')} check (char_length(code_challenge) <= 128),
      constraint ${n('oauth_authorizations_authorization_code_length')} check (char_length(authorization_code) <= 255),
      constraint ${n('oauth_authorizations_nonce_length')} check (char_length(nonce) <= 255),
      constraint ${n('oauth_authorizations_expires_at_future')} check (expires_at > created_at)
    )`,
    `create index ${n('oauth_auth_pending_exp_idx')} on ${t('oauth_authorizations')} (expires_at)`,

    `create table ${t('oauth_consents')} (
      id uuid not null,
      user_id uuid not null constraint ${n('oauth_consents_user_id_fkey')} references ${t('users')} (id) on delete cascade,
      client_id uuid not null constraint ${n('oauth_consents_client_id_fkey')} references ${t('oauth_clients')} (id) on delete cascade,
      scopes text not null,
      granted_at timestamptz not null default now(),
      revoked_at timestamptz,
      constraint ${n('oauth_consents_pkey')} primary key (id),
      constraint ${n('oauth_consents_user_client_unique')} unique (user_id, client_id),
      constraint ${n('oauth_consents_scopes_length')} check (char_length(scopes) <= 2048),
      constraint ${n('oauth_consents_scopes_not_empty')} check (char_length(trim(scopes)) > 0),
      constraint ${n('oauth_consents_revoked_after_granted')} check (revoked_at is null or revoked_at >= granted_at)
    )`,
    `create index ${n('oauth_consents_user_order_idx')} on ${t('oauth_consents')} (user_id, granted_at desc)`,
    `create index ${n('oauth_consents_active_client_idx')} on ${t('oauth_consents')} (client_id) where revoked_at is null`,

    `alter table ${t('sessions')} add column oauth_client_id uuid
      constraint ${n('sessions_oauth_client_id_fkey')} references ${t('oauth_clients')} (id) on delete cascade`,
    `alter table ${t('sessions')} add column scopes text
      constraint ${n('sessions_scopes_length')} check (char_length(scopes) <= 4096)`,
    `create index ${n('sessions_oauth_client_id_idx')} on ${t('sessions')} (oauth_client_id)`,
  ]);
}
