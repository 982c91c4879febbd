// Everything a user route needs about its caller, in ONE round trip: the user, its identities and
// the session named by the token (requireUser runs on every user request, so this is the hot path).
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import { identityColumns, sessionColumns, userColumns, type IdentityRow, type SessionRow, type UserRow } from './columns';
import type { Executor } from './users';

export interface UserContext {
  user: UserRow;
  identities: IdentityRow[];
  /** undefined when no session id was given or the session is gone (or belongs to someone else). */
  session: SessionRow | undefined;
}

export async function findUserContext(db: Executor, userId: string, sessionId: string | undefined): Promise<UserContext | undefined> {
  const row = await db
    .selectFrom('auth.users as u')
    .select(userColumns.map((c) => `u.${c}` as const))
    .select((eb) => [
      jsonArrayFrom(
        eb.selectFrom('auth.identities as i').select(identityColumns.map((c) => `i.${c}` as const)).whereRef('i.user_id', '=', 'u.id').orderBy('i.created_at'),
      ).as('identities'),
      jsonObjectFrom(
        eb
          .selectFrom('auth.sessions as s')
          .select(sessionColumns.map((c) => `s.${c}` as const))
          .where('s.id', '=', sessionId ?? '00000000-0000-0000-0000-000000000000')
          .whereRef('s.user_id', '=', 'u.id'),
      ).as('session'),
    ])
    .where('u.id', '=', userId)
    .executeTakeFirst();
  if (!row) return undefined;
  const { identities, session, ...user } = row as unknown as UserRow & { identities: IdentityRow[]; session: SessionRow | null };
  return { user, identities, session: sessionId ? (session ?? undefined) : undefined };
}
