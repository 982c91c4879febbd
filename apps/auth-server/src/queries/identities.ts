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

