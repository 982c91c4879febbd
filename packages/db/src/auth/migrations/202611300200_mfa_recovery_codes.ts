// MFA recovery codes (issue 41, auth-js 2.119's mfa.recoveryCodes): a factor of type recovery_code in mfa_factors (so
// it shows in user.factors, as auth-js expects) holding a set of one-time codes, each stored as the SHA-256 of its
// canonical form (the codes are random with 80 bits each, so a fast hash is enough: there is no dictionary to try).
// A code is used by setting used_at in one UPDATE … WHERE used_at IS NULL. Wrong codes are counted on the factor;
// the 5th locks verification until recovery_locked_until.
import type { Kysely } from 'kysely';
import { execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { n, t }: AuthNames): Promise<void> {
  await execAll(db, [
    // The type is shared by every namespace; the value is only used by later transactions.
    `alter type auth.factor_type add value if not exists 'recovery_code'`,
    `alter table ${t('mfa_factors')} add column recovery_failed_attempts integer not null default 0`,
    `alter table ${t('mfa_factors')} add column recovery_locked_until timestamptz`,
    `create table ${t('mfa_recovery_codes')} (
      id uuid not null default gen_random_uuid(),
      factor_id uuid not null constraint ${n('mfa_recovery_codes_factor_id_fkey')} references ${t('mfa_factors')} (id) on delete cascade,
      code_hash text not null,
      created_at timestamptz not null default now(),
      used_at timestamptz,
      constraint ${n('mfa_recovery_codes_pkey')} primary key (id),
      constraint ${n('mfa_recovery_codes_factor_code_key')} unique (factor_id, code_hash)
    )`,
  ]);
}
