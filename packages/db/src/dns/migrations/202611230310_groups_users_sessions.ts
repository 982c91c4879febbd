// Groups (a tree), users and cookie sessions of the DNS session API.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table dns.groups (
      id serial primary key,
      parent_id integer references dns.groups(id),
      name text not null check (length(name) between 1 and 255),
      deleted_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index groups_parent_id_idx on dns.groups (parent_id)`.execute(db);
  await sql`create index groups_name_idx on dns.groups (name)`.execute(db);
  // One live group of a name among siblings (roots are siblings of each other).
  await sql`
    create unique index groups_sibling_name_key on dns.groups (coalesce(parent_id, 0), lower(name))
    where deleted_at is null`.execute(db);

  await sql`
    create table dns.users (
      id serial primary key,
      group_id integer not null references dns.groups(id),
      username text not null check (length(username) between 1 and 200),
      email text not null,
      first_name text not null default '',
      last_name text not null default '',
      password_hash text not null,
      password_scheme text not null default 'bcrypt'
        check (password_scheme in ('bcrypt', 'pbkdf2-sha512', 'hmac-sha1', 'plaintext')),
      salt text,
      is_admin boolean not null default false,
      deleted_at timestamptz,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    )`.execute(db);
  await sql`create index users_group_id_idx on dns.users (group_id)`.execute(db);
  await sql`
    create unique index users_group_username_key on dns.users (group_id, lower(username))
    where deleted_at is null`.execute(db);

  await sql`
    create table dns.sessions (
      id serial primary key,
      sid text not null unique,
      user_id integer not null references dns.users(id) on delete cascade,
      data jsonb not null default '{}'::jsonb,
      expires_at timestamptz not null,
      created_at timestamptz not null default now(),
      last_seen_at timestamptz
    )`.execute(db);
  await sql`create index sessions_user_id_idx on dns.sessions (user_id)`.execute(db);
  await sql`create index sessions_expires_at_idx on dns.sessions (expires_at)`.execute(db);
}
