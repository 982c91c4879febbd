// Everything a user route needs about its caller, in ONE round trip: the user, its identities and
// the session named by the token (requireUser runs on every user request, so this is the hot path).
// Plain LEFT JOINs (one row per identity, usually one) are cheaper for PostgreSQL than JSON
// aggregation; the rows are folded back here.
import { identityColumns, sessionColumns, userColumns, type IdentityRow, type SessionRow, type UserRow } from './columns';
import { sql } from 'kysely';
import type { FactorRow } from './mfa';
import { prepared } from './prepared';
import type { Executor } from './users';

export interface UserContext {
  user: UserRow;
  identities: IdentityRow[];
  /** The user's MFA factors (GET /user lists them; most users have none, so this is usually empty). */
  factors: FactorRow[];
  /** undefined when no session id was given or the session is gone (or belongs to someone else). */
  session: SessionRow | undefined;
}

const NO_SESSION = '00000000-0000-0000-0000-000000000000';

const contextQuery = prepared((db: Executor, userId: string, sessionId: string) =>
  db
    .selectFrom('auth.users as u')
    .leftJoin('auth.identities as i', 'i.user_id', 'u.id')
    .leftJoin('auth.sessions as s', (join) => join.onRef('s.user_id', '=', 'u.id').on('s.id', '=', sessionId))
    .select(userColumns.map((c) => `u.${c}` as const))
    .select(identityColumns.map((c) => `i.${c} as i_${c}` as const))
    .select(sessionColumns.map((c) => `s.${c} as s_${c}` as const))
    // A scalar subquery, not a join: it does not multiply the identity rows, and costs one index probe.
    .select((eb) => eb.selectFrom('auth.mfa_factors as f').select(sql<FactorRow[] | null>`json_agg(f order by f.created_at)`.as('j')).whereRef('f.user_id', '=', 'u.id').as('factors_json'))
    .where('u.id', '=', userId)
    .orderBy('i.created_at'),
);

export async function findUserContext(db: Executor, userId: string, sessionId: string | undefined): Promise<UserContext | undefined> {
  const rows = (await contextQuery(db, db, userId, sessionId ?? NO_SESSION)) as unknown as Record<string, unknown>[];
  const first = rows[0];
  if (!first) return undefined;
  const user = Object.fromEntries(userColumns.map((c) => [c, first[c]])) as unknown as UserRow;
  const identities = rows
    .filter((r) => r.i_id !== null)
    .map((r) => Object.fromEntries(identityColumns.map((c) => [c, r[`i_${c}`]])) as unknown as IdentityRow);
  const session =
    sessionId && first.s_id !== null ? (Object.fromEntries(sessionColumns.map((c) => [c, first[`s_${c}`]])) as unknown as SessionRow) : undefined;
  const factors = (first.factors_json as FactorRow[] | null) ?? [];
  return { user, identities, session, factors };
}
