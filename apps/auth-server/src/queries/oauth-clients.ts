// SQL for auth.oauth_clients: the OAuth clients of Keyzone's authorization server. Deleted clients keep their
// row (deleted_at, as in GoTrue) but are never found; their sessions and consents are removed with the delete.
import type { Selectable, Updateable } from 'kysely';
import type { OAuthClientsTable } from '@keyzone/db';
import type { Executor } from './users';

export type OAuthClientRow = Selectable<OAuthClientsTable>;

export async function insertOAuthClient(db: Executor, row: Omit<OAuthClientRow, 'deleted_at'>): Promise<OAuthClientRow> {
  return db.insertInto('auth.oauth_clients').values(row).returningAll().executeTakeFirstOrThrow();
}

/** A live (not deleted) client, or undefined. */
export async function findOAuthClient(db: Executor, id: string): Promise<OAuthClientRow | undefined> {
  return db.selectFrom('auth.oauth_clients').selectAll().where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
}

export async function listOAuthClients(db: Executor, page: { limit: number; offset: number }): Promise<{ rows: OAuthClientRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    db.selectFrom('auth.oauth_clients').selectAll().where('deleted_at', 'is', null)
      .orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    db.selectFrom('auth.oauth_clients').select((eb) => eb.fn.countAll<string>().as('n')).where('deleted_at', 'is', null).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function updateOAuthClient(
  db: Executor,
  id: string,
  changes: Updateable<OAuthClientsTable>,
): Promise<OAuthClientRow | undefined> {
  return db.updateTable('auth.oauth_clients').set(changes).where('id', '=', id).where('deleted_at', 'is', null).returningAll().executeTakeFirst();
}

/** Soft-deletes a client; false when there was none. */
export async function markOAuthClientDeleted(db: Executor, id: string, at: Date): Promise<boolean> {
  const result = await db.updateTable('auth.oauth_clients').set({ deleted_at: at, updated_at: at })
    .where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
