// Passkeys (issue 31): the WebAuthn credentials a user registered for signing in without a password, and the
// challenges of registrations and sign-ins in flight (each used once). The WebAuthn MFA factor keeps its credential
// in mfa_factors.web_authn_credential and its challenge in mfa_challenges.web_authn_session_data, as in GoTrue.
import type { Kysely } from 'kysely';
import { execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { n, t }: AuthNames): Promise<void> {
  await execAll(db, [
    `create table ${t('webauthn_credentials')} (
      id uuid not null,
      user_id uuid not null constraint ${n('webauthn_credentials_user_id_fkey')} references ${t('users')} (id) on delete cascade,
      credential_id text not null,
      public_key text not null,
      sign_count bigint not null default 0,
      transports jsonb not null default '[]'::jsonb,
      aaguid uuid,
      backup_eligible boolean not null default false,
      backed_up boolean not null default false,
      friendly_name text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      last_used_at timestamptz,
      constraint ${n('webauthn_credentials_pkey')} primary key (id),
      constraint ${n('webauthn_credentials_credential_id_key')} unique (credential_id)
    )`,
    `create index ${n('webauthn_credentials_user_id_idx')} on ${t('webauthn_credentials')} (user_id)`,
    `create table ${t('webauthn_challenges')} (
      id uuid not null,
      user_id uuid constraint ${n('webauthn_challenges_user_id_fkey')} references ${t('users')} (id) on delete cascade,
      kind text not null,
      challenge text not null,
      created_at timestamptz not null default now(),
      expires_at timestamptz not null,
      constraint ${n('webauthn_challenges_pkey')} primary key (id),
      constraint ${n('webauthn_challenges_kind_check')} check (kind in ('registration', 'authentication'))
    )`,
    `create index ${n('webauthn_challenges_expires_at_idx')} on ${t('webauthn_challenges')} (expires_at)`,
  ]);
}
