// One row per email sent, visible to every instance, so hourly send limits (RATE_LIMIT_EMAIL_SENT)
// hold across processes: count rows with sent_at > now() - interval '1 hour'.
import type { Kysely } from 'kysely';
import { execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { n, t }: AuthNames): Promise<void> {
  await execAll(db, [
    `create table ${t('email_send_log')} (
      id bigserial not null,
      user_id uuid constraint ${n('email_send_log_user_id_fkey')} references ${t('users')} (id) on delete set null,
      kind text not null,
      recipient text not null,
      sent_at timestamptz not null default now(),
      constraint ${n('email_send_log_pkey')} primary key (id)
    )`,
    `create index ${n('email_send_log_sent_at_idx')} on ${t('email_send_log')} (sent_at)`,
    `create index ${n('email_send_log_recipient_sent_at_idx')} on ${t('email_send_log')} (recipient, sent_at)`,
  ]);
}
