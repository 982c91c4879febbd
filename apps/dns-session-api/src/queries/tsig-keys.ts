// SQL for dns.tsig_keys (issue 44): a user's TSIG keys for the DNS listener, found by their DNS name.
import type { Db } from './db';

export interface TsigKeyRow {
  id: number;
  user_id: number;
  name: string;
  algorithm: 'hmac-sha256' | 'hmac-sha512';
  zone_ids: number[] | null;
  name_patterns: string[] | null;
  record_types: string[] | null;
  allow_transfer: boolean;
  created_by: number | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

const columns = [
  'id', 'user_id', 'name', 'algorithm', 'zone_ids', 'name_patterns', 'record_types', 'allow_transfer', 'created_by', 'created_at', 'last_used_at', 'revoked_at',
] as const;

export async function insertTsigKey(
  db: Db,
  row: Omit<TsigKeyRow, 'id' | 'last_used_at' | 'revoked_at'> & { secret_sealed: string },
): Promise<TsigKeyRow> {
  return db.insertInto('dns.tsig_keys').values(row).returning(columns).executeTakeFirstOrThrow() as Promise<TsigKeyRow>;
}

export async function listTsigKeys(db: Db, userId: number): Promise<TsigKeyRow[]> {
  return db.selectFrom('dns.tsig_keys').select(columns).where('user_id', '=', userId).orderBy('id').execute() as Promise<TsigKeyRow[]>;
}

export async function revokeTsigKey(db: Db, userId: number, id: number, now: Date): Promise<TsigKeyRow | undefined> {
  return db.updateTable('dns.tsig_keys').set({ revoked_at: now }).where('user_id', '=', userId).where('id', '=', id).where('revoked_at', 'is', null)
    .returning(columns).executeTakeFirst() as Promise<TsigKeyRow | undefined>;
}

export type TsigKeyInForce = TsigKeyRow & { secret_sealed: string; group_id: number; is_admin: boolean };

/** The key in force with this name, with its owner, if the owner and the owner's group are live. */
export async function findTsigKeyInForce(db: Db, name: string): Promise<TsigKeyInForce | undefined> {
  return db
    .selectFrom('dns.tsig_keys as k')
    .innerJoin('dns.users as u', 'u.id', 'k.user_id')
    .innerJoin('dns.groups as g', 'g.id', 'u.group_id')
    .select(columns.map((c) => `k.${c}` as const))
    .select(['k.secret_sealed', 'u.group_id', 'u.is_admin'])
    .where('k.name', '=', name)
    .where('k.revoked_at', 'is', null)
    .where('u.deleted_at', 'is', null)
    .where('g.deleted_at', 'is', null)
    .executeTakeFirst() as Promise<TsigKeyInForce | undefined>;
}

/** At most once a minute per key. */
export async function touchTsigKey(db: Db, id: number, now: Date): Promise<void> {
  await db.updateTable('dns.tsig_keys').set({ last_used_at: now }).where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', new Date(now.getTime() - 60_000))]))
    .execute();
}
