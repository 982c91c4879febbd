// auth.uid(), auth.role(), auth.email(), auth.jwt(): read the JWT claims PostgREST puts in
// request.jwt.claims (or the legacy per-claim settings), so existing RLS policies keep working.
// Functions are shared by every namespace (create or replace is idempotent).
import type { Kysely } from 'kysely';
import { execAll } from './names';

function claimFunction(name: string, claim: string, type: 'uuid' | 'text'): string {
  return `create or replace function auth.${name}() returns ${type} language sql stable as $$
    select coalesce(
      nullif(current_setting('request.jwt.claim.${claim}', true), ''),
      (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> '${claim}')
    )::${type}
  $$`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await execAll(db, [
    claimFunction('uid', 'sub', 'uuid'),
    claimFunction('role', 'role', 'text'),
    claimFunction('email', 'email', 'text'),
    `create or replace function auth.jwt() returns jsonb language sql stable as $$
      select coalesce(
        nullif(current_setting('request.jwt.claim', true), ''),
        nullif(current_setting('request.jwt.claims', true), '')
      )::jsonb
    $$`,
  ]);
}
