// users, identities, sessions, refresh_tokens, audit_log_entries as GoTrue has them (reference §5.1).
// Differences: created_at/updated_at are NOT NULL DEFAULT now(); metadata columns default to '{}'.
import type { Kysely } from 'kysely';
import { createEnum, execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { n, t }: AuthNames): Promise<void> {
  await execAll(db, [
    'create schema if not exists auth',
    createEnum('auth.aal_level', ['aal1', 'aal2', 'aal3']),
    `create table ${t('users')} (
      instance_id uuid default '00000000-0000-0000-0000-000000000000',
      id uuid not null default gen_random_uuid(),
      aud varchar(255),
      role varchar(255),
      email varchar(255),
      encrypted_password varchar(255),
      email_confirmed_at timestamptz,
      invited_at timestamptz,
      confirmation_token varchar(255) default '',
      confirmation_sent_at timestamptz,
      recovery_token varchar(255) default '',
      recovery_sent_at timestamptz,
      email_change_token_new varchar(255) default '',
      email_change varchar(255) default '',
      email_change_sent_at timestamptz,
      email_change_token_current varchar(255) default '',
      email_change_confirm_status smallint default 0
        constraint ${n('users_email_change_confirm_status_check')}
        check (email_change_confirm_status >= 0 and email_change_confirm_status <= 2),
      last_sign_in_at timestamptz,
      raw_app_meta_data jsonb not null default '{}'::jsonb,
      raw_user_meta_data jsonb not null default '{}'::jsonb,
      is_super_admin boolean,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      phone text default null,
      phone_confirmed_at timestamptz,
      phone_change text default '',
      phone_change_token varchar(255) default '',
      phone_change_sent_at timestamptz,
      confirmed_at timestamptz generated always as (least(email_confirmed_at, phone_confirmed_at)) stored,
      reauthentication_token varchar(255) default '',
      reauthentication_sent_at timestamptz,
      is_sso_user boolean not null default false,
      deleted_at timestamptz,
      is_anonymous boolean not null default false,
      banned_until timestamptz,
      constraint ${n('users_pkey')} primary key (id)
    )`,
    `create unique index ${n('users_email_partial_key')} on ${t('users')} (email) where (is_sso_user = false)`,
    `create unique index ${n('users_phone_key')} on ${t('users')} (phone) where (phone is not null and phone <> '')`,
    `create index ${n('users_instance_id_idx')} on ${t('users')} (instance_id)`,
    `create index ${n('users_instance_id_email_idx')} on ${t('users')} (instance_id, lower(email))`,
    `create index ${n('users_is_anonymous_idx')} on ${t('users')} (is_anonymous)`,
    // Token columns: unique among real tokens; '' and purely numeric values are excluded (GoTrue).
    ...['confirmation_token', 'recovery_token', 'email_change_token_current', 'email_change_token_new', 'reauthentication_token'].map(
      (column) =>
        `create unique index ${n(`${column}_idx`)} on ${t('users')} (${column}) where ${column} !~ '^[0-9 ]*$'`,
    ),

    `create table ${t('identities')} (
      provider_id text not null,
      user_id uuid not null constraint ${n('identities_user_id_fkey')} references ${t('users')} (id) on delete cascade,
      identity_data jsonb not null,
      provider text not null,
      last_sign_in_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      email text generated always as (lower(identity_data ->> 'email')) stored,
      id uuid not null default gen_random_uuid(),
      constraint ${n('identities_pkey')} primary key (id),
      constraint ${n('identities_provider_id_provider_unique')} unique (provider_id, provider)
    )`,
    `create index ${n('identities_user_id_idx')} on ${t('identities')} (user_id)`,
    `create index ${n('identities_email_idx')} on ${t('identities')} (email text_pattern_ops)`,

    `create table ${t('sessions')} (
      id uuid not null default gen_random_uuid(),
      user_id uuid not null constraint ${n('sessions_user_id_fkey')} references ${t('users')} (id) on delete cascade,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      factor_id uuid,
      aal auth.aal_level,
      not_after timestamptz,
      refreshed_at timestamptz,
      user_agent text,
      ip inet,
      tag text,
      constraint ${n('sessions_pkey')} primary key (id)
    )`,
    `create index ${n('sessions_user_id_idx')} on ${t('sessions')} (user_id)`,
    `create index ${n('user_id_created_at_idx')} on ${t('sessions')} (user_id, created_at)`,
    `create index ${n('sessions_not_after_idx')} on ${t('sessions')} (not_after desc)`,

    `create table ${t('refresh_tokens')} (
      instance_id uuid default '00000000-0000-0000-0000-000000000000',
      id bigserial not null,
      token varchar(255),
      user_id varchar(255),
      revoked boolean default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      parent varchar(255),
      session_id uuid constraint ${n('refresh_tokens_session_id_fkey')} references ${t('sessions')} (id) on delete cascade,
      constraint ${n('refresh_tokens_pkey')} primary key (id),
      constraint ${n('refresh_tokens_token_unique')} unique (token)
    )`,
    `create index ${n('refresh_tokens_instance_id_idx')} on ${t('refresh_tokens')} (instance_id)`,
    `create index ${n('refresh_tokens_instance_id_user_id_idx')} on ${t('refresh_tokens')} (instance_id, user_id)`,
    `create index ${n('refresh_tokens_parent_idx')} on ${t('refresh_tokens')} (parent)`,
    `create index ${n('refresh_tokens_session_id_revoked_idx')} on ${t('refresh_tokens')} (session_id, revoked)`,
    `create index ${n('refresh_tokens_updated_at_idx')} on ${t('refresh_tokens')} (updated_at desc)`,

    `create table ${t('audit_log_entries')} (
      instance_id uuid default '00000000-0000-0000-0000-000000000000',
      id uuid not null default gen_random_uuid(),
      payload json,
      created_at timestamptz not null default now(),
      ip_address varchar(64) not null default '',
      constraint ${n('audit_log_entries_pkey')} primary key (id)
    )`,
    `create index ${n('audit_logs_instance_id_idx')} on ${t('audit_log_entries')} (instance_id)`,
    // GET /admin/audit lists newest first.
    `create index ${n('audit_log_entries_created_at_idx')} on ${t('audit_log_entries')} (created_at desc, id)`,
  ]);
}
