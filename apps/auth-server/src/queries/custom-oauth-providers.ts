// SQL for auth.custom_oauth_providers: OAuth 2.0 / OIDC providers an admin added (issue 41).
import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { CustomOAuthProvidersTable, OidcDiscoveryJson } from '@keyzone/db';
import type { Executor } from './users';

export type CustomProviderRow = Selectable<CustomOAuthProvidersTable>;

/** Serializes creations across instances (the CUSTOM_OAUTH_MAX_PROVIDERS count) until the transaction ends. */
const CREATE_LOCK_KEY = 0x6b7a6370; // "kzcp"

export async function lockCustomProviderCreation(db: Executor): Promise<void> {
  await sql`select pg_advisory_xact_lock(${CREATE_LOCK_KEY})`.execute(db);
}

export async function countCustomProviders(db: Executor): Promise<number> {
  const row = await db.selectFrom('auth.custom_oauth_providers').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertCustomProvider(db: Executor, row: Insertable<CustomOAuthProvidersTable>): Promise<CustomProviderRow> {
  return db.insertInto('auth.custom_oauth_providers').values(row).returningAll().executeTakeFirstOrThrow();
}

export async function findCustomProvider(db: Executor, identifier: string): Promise<CustomProviderRow | undefined> {
  return db.selectFrom('auth.custom_oauth_providers').selectAll().where('identifier', '=', identifier).executeTakeFirst();
}

/** Newest first, as GoTrue lists them. */
export async function listCustomProviders(db: Executor, type: 'oauth2' | 'oidc' | undefined): Promise<CustomProviderRow[]> {
  let query = db.selectFrom('auth.custom_oauth_providers').selectAll();
  if (type) query = query.where('provider_type', '=', type);
  return query.orderBy('created_at', 'desc').orderBy('id').execute();
}

/** Only when the row still has the `updated_at` the caller read: an update in between wins, this one is refused. */
export async function updateCustomProvider(
  db: Executor,
  id: string,
  readAt: Date,
  changes: Updateable<CustomOAuthProvidersTable>,
): Promise<CustomProviderRow | undefined> {
  return db.updateTable('auth.custom_oauth_providers').set(changes)
    .where('id', '=', id).where('updated_at', '=', readAt).returningAll().executeTakeFirst();
}

/**
 * Stores a re-read discovery document unless another instance stored one since `cachedAt` (then theirs stands):
 * true when this one was stored.
 */
export async function storeRefreshedDiscovery(db: Executor, id: string, cachedAt: Date, discovery: OidcDiscoveryJson, at: Date): Promise<boolean> {
  const result = await db.updateTable('auth.custom_oauth_providers')
    .set({ cached_discovery: JSON.stringify(discovery), discovery_cached_at: at })
    .where('id', '=', id).where('discovery_cached_at', '=', cachedAt).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteCustomProvider(db: Executor, identifier: string): Promise<boolean> {
  const result = await db.deleteFrom('auth.custom_oauth_providers').where('identifier', '=', identifier).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
