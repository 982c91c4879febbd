// GET /admin/users at a million users: case-insensitive substring filter on email and full name
// through pg_trgm GIN indexes, and a btree for created_at-ordered paging. Queries must use the same
// expressions to hit them:
//   lower(email) like '%' || lower($1) || '%'
//   lower(raw_user_meta_data ->> 'full_name') like '%' || lower($1) || '%'
//   order by created_at desc, id   (keyset: where (created_at, id) < ($2, $3) needs matching directions)
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { n, t }: AuthNames): Promise<void> {
  await sql`create extension if not exists pg_trgm`.execute(db);
  // The operator class lives wherever the extension was installed (public, extensions, ...).
  const { rows } = await sql<{ schema: string }>`
    select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace
    where e.extname = 'pg_trgm'`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error('pg_trgm extension is not installed');
  const opclass = `"${schema.replace(/"/g, '""')}".gin_trgm_ops`;
  await execAll(db, [
    `create index ${n('users_email_trgm_idx')} on ${t('users')} using gin (lower(email) ${opclass})`,
    `create index ${n('users_full_name_trgm_idx')} on ${t('users')} using gin (lower(raw_user_meta_data ->> 'full_name') ${opclass})`,
    `create index ${n('users_created_at_id_idx')} on ${t('users')} (created_at desc, id)`,
  ]);
}
