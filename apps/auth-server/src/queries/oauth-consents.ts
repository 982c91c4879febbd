// SQL for auth.oauth_consents: what each user allowed each client (one row per pair; revoking keeps the row).
import type { Selectable } from 'kysely';
import type { OAuthConsentsTable } from '@keyzone/db';
import type { Executor } from './users';

export type OAuthConsentRow = Selectable<OAuthConsentsTable>;

export async function findActiveConsent(db: Executor, userId: string, clientId: string): Promise<OAuthConsentRow | undefined> {
  return db.selectFrom('auth.oauth_consents').selectAll()
    .where('user_id', '=', userId).where('client_id', '=', clientId).where('revoked_at', 'is', null).executeTakeFirst();
}

/** Records a consent: the scopes now granted replace a revoked consent's and add to a live one's. */
export async function upsertConsent(db: Executor, row: { id: string; user_id: string; client_id: string; scopes: string; granted_at: Date }): Promise<void> {
  await db.insertInto('auth.oauth_consents').values(row)
    .onConflict((oc) => oc.columns(['user_id', 'client_id']).doUpdateSet({ scopes: row.scopes, granted_at: row.granted_at, revoked_at: null }))
    .execute();
}

/** The user's live consents with their (live) clients, newest first. */
export async function listActiveConsents(db: Executor, userId: string) {
  return db.selectFrom('auth.oauth_consents as c')
    .innerJoin('auth.oauth_clients as k', 'k.id', 'c.client_id')
    .select(['c.client_id', 'c.scopes', 'c.granted_at', 'k.client_name', 'k.client_uri', 'k.logo_uri'])
    .where('c.user_id', '=', userId).where('c.revoked_at', 'is', null).where('k.deleted_at', 'is', null)
    .orderBy('c.granted_at', 'desc')
    .execute();
}

/** Revokes the user's consent for a client; false when there was no live one. */
export async function revokeConsent(db: Executor, userId: string, clientId: string, at: Date): Promise<boolean> {
  const result = await db.updateTable('auth.oauth_consents').set({ revoked_at: at })
    .where('user_id', '=', userId).where('client_id', '=', clientId).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A deleted client keeps no consent. */
export async function deleteClientConsents(db: Executor, clientId: string): Promise<void> {
  await db.deleteFrom('auth.oauth_consents').where('client_id', '=', clientId).execute();
}
