// One identity for both services (issue 20): which auth-server user (the access token's `sub`) acts as which
// DNS user. An auth user maps to at most one DNS user; a DNS user may be reached from several auth users.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table dns.user_identities (
      sub uuid primary key,
      user_id integer not null references dns.users (id) on delete cascade,
      linked_by text not null check (linked_by in ('admin', 'verified_email')),
      created_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index user_identities_user_id_idx on dns.user_identities (user_id)`.execute(db);
}
