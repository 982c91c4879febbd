// SQL for dns.user_identities: which auth-server user (sub) acts as which DNS user.
import type { Db } from './db';

export interface UserIdentityRow {
  sub: string;
  user_id: number;
  linked_by: 'admin' | 'verified_email';
  created_at: Date;
}

/** The live DNS user and group an auth-server user is linked to. */
export async function findLinkedUser(db: Db, sub: string): Promise<{ user_id: number; group_id: number; is_admin: boolean } | undefined> {
  return db
    .selectFrom('dns.user_identities as i')
    .innerJoin('dns.users as u', 'u.id', 'i.user_id')
    .innerJoin('dns.groups as g', 'g.id', 'u.group_id')
    .select(['i.user_id', 'u.group_id', 'u.is_admin'])
    .where('i.sub', '=', sub)
    .where('u.deleted_at', 'is', null)
    .where('g.deleted_at', 'is', null)
    .executeTakeFirst();
}

/** The ids of live users with exactly this address (case-insensitive). */
export async function findLiveUserIdsByEmail(db: Db, email: string): Promise<number[]> {
  const rows = await db
    .selectFrom('dns.users as u')
    .innerJoin('dns.groups as g', 'g.id', 'u.group_id')
    .select('u.id')
    .where((eb) => eb(eb.fn('lower', ['u.email']), '=', email.toLowerCase()))
    .where('u.deleted_at', 'is', null)
    .where('g.deleted_at', 'is', null)
    .limit(2)
    .execute();
  return rows.map((r) => r.id);
}

/** Inserts the link; false when the sub is already linked (to anyone). */
export async function insertUserIdentity(db: Db, row: { sub: string; userId: number; linkedBy: 'admin' | 'verified_email'; now: Date }): Promise<boolean> {
  const inserted = await db
    .insertInto('dns.user_identities')
    .values({ sub: row.sub, user_id: row.userId, linked_by: row.linkedBy, created_at: row.now })
    .onConflict((oc) => oc.column('sub').doNothing())
    .returning('sub')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function listUserIdentities(db: Db, userId: number): Promise<UserIdentityRow[]> {
  return db.selectFrom('dns.user_identities').selectAll().where('user_id', '=', userId).orderBy('created_at').execute() as Promise<UserIdentityRow[]>;
}

export async function deleteUserIdentity(db: Db, userId: number, sub: string): Promise<boolean> {
  const result = await db.deleteFrom('dns.user_identities').where('user_id', '=', userId).where('sub', '=', sub).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Removes `sub`'s link when it points to a deleted user (or one in a deleted group). */
export async function deleteLinksToGoneUsers(db: Db, sub: string): Promise<void> {
  await db
    .deleteFrom('dns.user_identities')
    .where('sub', '=', sub)
    .where((eb) => eb.not(eb.exists(
      eb.selectFrom('dns.users as u').innerJoin('dns.groups as g', 'g.id', 'u.group_id').select('u.id')
        .whereRef('u.id', '=', 'dns.user_identities.user_id').where('u.deleted_at', 'is', null).where('g.deleted_at', 'is', null),
    )))
    .execute();
}
