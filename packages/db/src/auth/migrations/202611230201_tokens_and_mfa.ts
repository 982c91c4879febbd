// one_time_tokens, flow_state (PKCE / OAuth state) and the MFA tables (reference §5.1, §5.2).
import type { Kysely } from 'kysely';
import { createEnum, execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { n, t }: AuthNames): Promise<void> {
  await execAll(db, [
    createEnum('auth.one_time_token_type', [
      'confirmation_token',
      'reauthentication_token',
      'recovery_token',
      'email_change_token_new',
      'email_change_token_current',
      'phone_change_token',
    ]),
    createEnum('auth.code_challenge_method', ['s256', 'plain']),
    createEnum('auth.factor_type', ['totp', 'webauthn', 'phone']),
    createEnum('auth.factor_status', ['unverified', 'verified']),

    `create table ${t('one_time_tokens')} (
      id uuid not null default gen_random_uuid(),
      user_id uuid not null constraint ${n('one_time_tokens_user_id_fkey')} references ${t('users')} (id) on delete cascade,
      token_type auth.one_time_token_type not null,
      token_hash text not null constraint ${n('one_time_tokens_token_hash_check')} check (char_length(token_hash) > 0),
      relates_to text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint ${n('one_time_tokens_pkey')} primary key (id)
    )`,
    `create unique index ${n('one_time_tokens_user_id_token_type_key')} on ${t('one_time_tokens')} (user_id, token_type)`,
    `create index ${n('one_time_tokens_token_hash_hash_idx')} on ${t('one_time_tokens')} using hash (token_hash)`,
    `create index ${n('one_time_tokens_relates_to_hash_idx')} on ${t('one_time_tokens')} using hash (relates_to)`,

    `create table ${t('flow_state')} (
      id uuid not null default gen_random_uuid(),
      user_id uuid,
      auth_code text,
      code_challenge_method auth.code_challenge_method,
      code_challenge text,
      provider_type text not null,
      provider_access_token text,
      provider_refresh_token text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      authentication_method text not null,
      auth_code_issued_at timestamptz,
      invite_token text,
      referrer text,
      linking_target_id uuid,
      email_optional boolean not null default false,
      constraint ${n('flow_state_pkey')} primary key (id)
    )`,
    `create index ${n('idx_auth_code')} on ${t('flow_state')} (auth_code)`,
    `create index ${n('idx_user_id_auth_method')} on ${t('flow_state')} (user_id, authentication_method)`,
    `create index ${n('flow_state_created_at_idx')} on ${t('flow_state')} (created_at desc)`,

    `create table ${t('mfa_factors')} (
      id uuid not null default gen_random_uuid(),
      user_id uuid not null constraint ${n('mfa_factors_user_id_fkey')} references ${t('users')} (id) on delete cascade,
      friendly_name text,
      factor_type auth.factor_type not null,
      status auth.factor_status not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      secret text,
      phone text,
      last_challenged_at timestamptz constraint ${n('mfa_factors_last_challenged_at_key')} unique,
      web_authn_credential jsonb,
      web_authn_aaguid uuid,
      last_webauthn_challenge_data jsonb,
      constraint ${n('mfa_factors_pkey')} primary key (id)
    )`,
    `create unique index ${n('mfa_factors_user_friendly_name_unique')} on ${t('mfa_factors')} (friendly_name, user_id) where trim(friendly_name) <> ''`,
    `create index ${n('factor_id_created_at_idx')} on ${t('mfa_factors')} (user_id, created_at)`,
    `create index ${n('mfa_factors_user_id_idx')} on ${t('mfa_factors')} (user_id)`,
    `create unique index ${n('unique_phone_factor_per_user')} on ${t('mfa_factors')} (user_id, phone)`,

    `create table ${t('mfa_challenges')} (
      id uuid not null default gen_random_uuid(),
      factor_id uuid not null constraint ${n('mfa_challenges_auth_factor_id_fkey')} references ${t('mfa_factors')} (id) on delete cascade,
      created_at timestamptz not null default now(),
      verified_at timestamptz,
      ip_address inet not null,
      otp_code text,
      web_authn_session_data jsonb,
      constraint ${n('mfa_challenges_pkey')} primary key (id)
    )`,
    `create index ${n('mfa_challenge_created_at_idx')} on ${t('mfa_challenges')} (created_at desc)`,

    `create table ${t('mfa_amr_claims')} (
      session_id uuid not null constraint ${n('mfa_amr_claims_session_id_fkey')} references ${t('sessions')} (id) on delete cascade,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      authentication_method text not null,
      id uuid not null default gen_random_uuid(),
      constraint ${n('amr_id_pk')} primary key (id),
      constraint ${n('mfa_amr_claims_session_id_authentication_method_pkey')} unique (session_id, authentication_method)
    )`,
  ]);
}
