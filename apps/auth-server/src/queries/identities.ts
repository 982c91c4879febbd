// SQL for auth.identities.
import type { Executor } from './users';
import { identityColumns, type IdentityRow } from './columns';

export async function findIdentitiesByUserId(db: Executor, userId: string): Promise<IdentityRow[]> {
  return (await db
    .selectFrom('auth.identities')
    .select(identityColumns)
    .where('user_id', '=', userId)
    .orderBy('created_at', 'asc')
    .execute()) as IdentityRow[];
}

export interface NewIdentity {
  id: string;
  provider_id: string;
  user_id: string;
  identity_data: Record<string, unknown>;
  provider: string;
  last_sign_in_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertIdentity(db: Executor, identity: NewIdentity): Promise<IdentityRow> {
  return (await db
    .insertInto('auth.identities')
    .values({ ...identity, identity_data: JSON.stringify(identity.identity_data) } as never)
    .returning(identityColumns)
    .executeTakeFirstOrThrow()) as IdentityRow;
}


/** The identity of a provider's user, locked: two callbacks for one new identity cannot both create it. */
export async function findIdentityByProviderForUpdate(db: Executor, provider: string, providerId: string): Promise<IdentityRow | undefined> {
  return (await db
    .selectFrom('auth.identities')
    .select(identityColumns)
    .where('provider', '=', provider)
    .where('provider_id', '=', providerId)
    .forUpdate()
    .executeTakeFirst()) as IdentityRow | undefined;
}

/** A returning sign-in: the provider's current profile replaces the stored one. */
export async function refreshIdentity(db: Executor, id: string, data: Record<string, unknown>, at: Date): Promise<void> {
  await db
    .updateTable('auth.identities')
    .set({ identity_data: JSON.stringify(data), last_sign_in_at: at, updated_at: at } as never)
    .where('id', '=', id)
    .execute();
}

export async function deleteIdentity(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('auth.identities').where('id', '=', id).execute();
}
