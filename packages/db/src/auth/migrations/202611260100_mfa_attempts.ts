// Wrong codes per MFA challenge (issue 26): a challenge is burned after 5, so a stolen password cannot try the
// whole TOTP space against one challenge.
import type { Kysely } from 'kysely';
import { execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { t }: AuthNames): Promise<void> {
  await execAll(db, [`alter table ${t('mfa_challenges')} add column failed_attempts integer not null default 0`]);
}
