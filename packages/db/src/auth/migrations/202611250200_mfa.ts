// Multi-factor authentication (issue 17): a TOTP code is accepted once, so a factor remembers the last time
// step it accepted; and two factors may be challenged in the same instant (GoTrue's unique constraint on
// last_challenged_at makes the second challenge fail).
import type { Kysely } from 'kysely';
import { execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { n, t }: AuthNames): Promise<void> {
  await execAll(db, [
    `alter table ${t('mfa_factors')} add column last_totp_step bigint`,
    `alter table ${t('mfa_factors')} drop constraint ${n('mfa_factors_last_challenged_at_key')}`,
  ]);
}
