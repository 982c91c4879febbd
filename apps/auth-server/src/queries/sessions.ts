// SQL for auth.sessions and auth.mfa_amr_claims (the AMR list inside access tokens). The refresh
// path has its own statements (refresh-fast.ts, refresh-grant.ts).
import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { Executor } from './users';
import { sessionColumns, type SessionRow } from './columns';

export async function insertSession(
  db: Executor,
  session: {
    id: string; user_id: string; aal: string; created_at: Date; user_agent: string | null; ip: string | null; not_after?: Date;
    oauth_client_id?: string; scopes?: string;
  },
): Promise<SessionRow> {
  return (await db
    .insertInto('auth.sessions')
    .values({ ...session, updated_at: session.created_at } as never)
    .returning(sessionColumns)
    .executeTakeFirstOrThrow()) as SessionRow;
}

export async function findSessionById(db: Executor, id: string): Promise<SessionRow | undefined> {
  return (await db.selectFrom('auth.sessions').select(sessionColumns).where('id', '=', id).executeTakeFirst()) as
    | SessionRow
    | undefined;
}

/** Deletes sessions of a user (refresh tokens and AMR claims cascade); returns how many. */
export async function deleteSessions(
  db: Executor,
  userId: string,
  filter: { only?: string; except?: string } = {},
): Promise<number> {
  let query = db.deleteFrom('auth.sessions').where('user_id', '=', userId);
  if (filter.only) query = query.where('id', '=', filter.only);
  if (filter.except) query = query.where('id', '!=', filter.except);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function recordAmr(db: Executor, sessionId: string, method: string, at: Date): Promise<void> {
  await db
    .insertInto('auth.mfa_amr_claims')
    .values({ id: randomUUID(), session_id: sessionId, authentication_method: method, created_at: at, updated_at: at } as never)
    .onConflict((oc) => oc.columns(['session_id', 'authentication_method'] as never).doUpdateSet({ updated_at: at } as never))
    .execute();
}


/** The AMR claims of a session, oldest first (the access token's amr). */
export async function findAmrClaims(db: Executor, sessionId: string): Promise<Array<{ authentication_method: string; updated_at: Date | string }>> {
  return db
    .selectFrom('auth.mfa_amr_claims')
    .select(['authentication_method', 'updated_at'])
    .where('session_id', '=', sessionId)
    .orderBy('updated_at')
    .execute() as Promise<Array<{ authentication_method: string; updated_at: Date | string }>>;
}

/**
 * The session row's version (its xmin: every committed update changes it), read without waiting for a lock
 * another transaction holds on the row. A waiting refresh uses it to tell a busy session from a stuck one.
 */
export async function sessionRowVersion(db: Executor, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('auth.sessions').select(sql<string>`xmin::text`.as('version')).where('id', '=', id).executeTakeFirst();
  return row?.version;
}

/** Ends every session an OAuth client holds, of one user or of all users; returns how many. */
export async function deleteOAuthClientSessions(db: Executor, clientId: string, userId?: string): Promise<number> {
  let query = db.deleteFrom('auth.sessions').where('oauth_client_id', '=', clientId);
  if (userId) query = query.where('user_id', '=', userId);
  return Number((await query.executeTakeFirst()).numDeletedRows);
}

/** Ends one session; returns whether it existed. */
export async function deleteSessionById(db: Executor, id: string): Promise<boolean> {
  return Number((await db.deleteFrom('auth.sessions').where('id', '=', id).executeTakeFirst()).numDeletedRows) > 0;
}
