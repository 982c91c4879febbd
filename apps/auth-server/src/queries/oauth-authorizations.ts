// SQL for auth.oauth_authorizations: one row per GET /oauth/authorize, from the request through consent to the
// exchange of its code (kept afterwards, so a replayed code finds the session it issued).
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { OAuthAuthorizationsTable } from '@keyzone/db';
import type { Executor } from './users';

export type OAuthAuthorizationRow = Selectable<OAuthAuthorizationsTable>;

export async function insertOAuthAuthorization(db: Executor, row: Insertable<OAuthAuthorizationsTable>): Promise<void> {
  await db.insertInto('auth.oauth_authorizations').values(row).execute();
}

/** Locks the authorization (FOR UPDATE): consent decisions and the first look by a user are serialised. */
export async function lockOAuthAuthorization(db: Executor, authorizationId: string): Promise<OAuthAuthorizationRow | undefined> {
  return db.selectFrom('auth.oauth_authorizations').selectAll().where('authorization_id', '=', authorizationId).forUpdate().executeTakeFirst();
}

/** Locks the authorization that handed out the code with this hash. */
export async function lockOAuthAuthorizationByCode(db: Executor, codeHash: string): Promise<OAuthAuthorizationRow | undefined> {
  return db.selectFrom('auth.oauth_authorizations').selectAll().where('authorization_code', '=', codeHash).forUpdate().executeTakeFirst();
}

export async function updateOAuthAuthorization(db: Executor, id: string, changes: Updateable<OAuthAuthorizationsTable>): Promise<void> {
  await db.updateTable('auth.oauth_authorizations').set(changes).where('id', '=', id).execute();
}

/** Authorizations that expired before `before` (a used code's row outlives its use by the same margin). */
export async function deleteExpiredOAuthAuthorizations(db: Executor, before: Date, limit: number): Promise<number> {
  const result = await db.deleteFrom('auth.oauth_authorizations')
    .where('id', 'in', (eb) => eb.selectFrom('auth.oauth_authorizations').select('id').where('expires_at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The authorization, unlocked (the hosted consent page's headers only read its client). */
export async function findOAuthAuthorization(db: Executor, authorizationId: string): Promise<OAuthAuthorizationRow | undefined> {
  return db.selectFrom('auth.oauth_authorizations').selectAll().where('authorization_id', '=', authorizationId).executeTakeFirst();
}
