// SQL for dns.api_tokens (issue 32): a user's tokens for the PowerDNS-compatible API, found by their hash.
import type { Db } from './db';

export interface ApiTokenRow {
  id: number;
  user_id: number;
  name: string;
  zone_ids: number[] | null;
  name_patterns: string[] | null;
  record_types: string[] | null;
  created_by: number | null;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const columns = ['id', 'user_id', 'name', 'zone_ids', 'name_patterns', 'record_types', 'created_by', 'created_at', 'expires_at', 'last_used_at', 'revoked_at'] as const;

export async function insertApiToken(
  db: Db,
  row: Omit<ApiTokenRow, 'id' | 'last_used_at' | 'revoked_at'> & { token_hash: string },
): Promise<ApiTokenRow> {
  return db.insertInto('dns.api_tokens').values(row).returning(columns).executeTakeFirstOrThrow() as Promise<ApiTokenRow>;
}

export async function listApiTokens(db: Db, userId: number): Promise<ApiTokenRow[]> {
  return db.selectFrom('dns.api_tokens').select(columns).where('user_id', '=', userId).orderBy('id').execute() as Promise<ApiTokenRow[]>;
}

export async function revokeApiToken(db: Db, userId: number, id: number, now: Date): Promise<ApiTokenRow | undefined> {
  return db.updateTable('dns.api_tokens').set({ revoked_at: now }).where('user_id', '=', userId).where('id', '=', id).where('revoked_at', 'is', null)
    .returning(columns).executeTakeFirst() as Promise<ApiTokenRow | undefined>;
}

/** A token in force (not revoked, not expired) with its owner, if the owner and the owner's group are live. */
export async function findTokenInForce(
  db: Db,
  tokenHash: string,
  now: Date,
): Promise<(ApiTokenRow & { group_id: number; is_admin: boolean }) | undefined> {
  return db
    .selectFrom('dns.api_tokens as t')
    .innerJoin('dns.users as u', 'u.id', 't.user_id')
    .innerJoin('dns.groups as g', 'g.id', 'u.group_id')
    .select(columns.map((c) => `t.${c}` as const))
    .select(['u.group_id', 'u.is_admin'])
    .where('t.token_hash', '=', tokenHash)
    .where('t.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('t.expires_at', 'is', null), eb('t.expires_at', '>', now)]))
    .where('u.deleted_at', 'is', null)
    .where('g.deleted_at', 'is', null)
    .executeTakeFirst() as Promise<(ApiTokenRow & { group_id: number; is_admin: boolean }) | undefined>;
}

/** At most once a minute per token: a busy client does not write on every call. */
export async function touchApiToken(db: Db, id: number, now: Date): Promise<void> {
  await db.updateTable('dns.api_tokens').set({ last_used_at: now }).where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', new Date(now.getTime() - 60_000))]))
    .execute();
}
