// Zone publishing (issue 19): every committed change to a zone queues, in the same transaction, a job per
// nameserver that serves the zone (an outbox); the publisher applies them in order and keeps each
// nameserver's last success and last error for GET /nameserver/<id>/status.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table dns.publish_jobs (
      id bigserial primary key,
      nameserver_id integer not null references dns.nameservers (id) on delete cascade,
      zone_id integer not null,
      created_at timestamptz not null default now(),
      attempts integer not null default 0,
      next_attempt_at timestamptz not null default now(),
      last_error text
    )`.execute(db);
  await sql`create index publish_jobs_nameserver_idx on dns.publish_jobs (nameserver_id, id)`.execute(db);
  await sql`
    create table dns.publish_status (
      nameserver_id integer primary key references dns.nameservers (id) on delete cascade,
      last_success_at timestamptz,
      last_error text,
      last_error_at timestamptz
    )`.execute(db);
}
