// Hardening (issue 11): request-rate buckets shared by every instance, a counter of wrong codes per
// one-time token (burned after 5), and a mail outbox so answers never wait for SMTP.
import type { Kysely } from 'kysely';
import { execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { n, t }: AuthNames): Promise<void> {
  await execAll(db, [
    // One token bucket per limit and client ("verify:203.0.113.7"); a missing row is a full bucket.
    `create table ${t('rate_limit_buckets')} (
      key text not null,
      tokens double precision not null,
      updated_at timestamptz not null,
      constraint ${n('rate_limit_buckets_pkey')} primary key (key)
    )`,
    `create index ${n('rate_limit_buckets_updated_at_idx')} on ${t('rate_limit_buckets')} (updated_at)`,
    `alter table ${t('one_time_tokens')} add column failed_attempts integer not null default 0`,
    // The per-client email budget: who asked for the mail (the limit key, not necessarily an IP).
    `alter table ${t('email_send_log')} add column client text`,
    `create index ${n('email_send_log_client_sent_at_idx')} on ${t('email_send_log')} (client, sent_at)`,
    // Rendered messages waiting for SMTP. A row is deleted once sent: the plain code it carries
    // lives no longer than the delivery.
    `create table ${t('mail_outbox')} (
      id bigserial not null,
      kind text not null,
      recipient text not null,
      envelope jsonb not null,
      created_at timestamptz not null default now(),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null default now(),
      last_error text,
      constraint ${n('mail_outbox_pkey')} primary key (id)
    )`,
    `create index ${n('mail_outbox_next_attempt_at_idx')} on ${t('mail_outbox')} (next_attempt_at)`,
  ]);
}
