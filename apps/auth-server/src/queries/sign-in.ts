// The password grant's SQL: one read (user + password hash + identities) and one write statement
// (session, AMR claim, refresh token, last_sign_in_at on user and identity, audit row) — the grant
// is bcrypt-bound, and everything else should cost as little as possible beside it.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { identityColumns, userColumns, type IdentityRow, type UserRow } from './columns';
import type { FactorRow } from './mfa';
import { prepared } from './prepared';
import { NIL_UUID, type Executor } from './users';

export interface SignInCandidate {
  user: UserRow;
  encryptedPassword: string | null;
  identities: IdentityRow[];
  factors: FactorRow[];
}

const byColumn = (column: 'email' | 'phone') =>
  prepared((db: Executor, value: string, aud: string) => {
    let query = db
      .selectFrom('auth.users as u')
      .leftJoin('auth.identities as i', 'i.user_id', 'u.id')
      .select(userColumns.map((c) => `u.${c}` as const))
      .select('u.encrypted_password')
      .select(identityColumns.map((c) => `i.${c} as i_${c}` as const))
      .select((eb) => eb.selectFrom('auth.mfa_factors as f').select(sql<FactorRow[] | null>`json_agg(f order by f.created_at)`.as('j')).whereRef('f.user_id', '=', 'u.id').as('factors_json'))
      .where(`u.${column}`, '=', value)
      .where('u.aud', '=', aud);
    if (column === 'email') query = query.where('u.is_sso_user', '=', false);
    return query.orderBy('i.created_at');
  });

const byEmail = byColumn('email');
const byPhone = byColumn('phone');

export async function findSignInCandidate(
  db: Executor,
  column: 'email' | 'phone',
  value: string,
  aud: string,
): Promise<SignInCandidate | undefined> {
  const rows = (await (column === 'email' ? byEmail : byPhone)(db, db, value, aud)) as unknown as Record<string, unknown>[];
  const first = rows[0];
  if (!first) return undefined;
  // Several rows only for a user with several identities: all rows belong to the first user.
  const mine = rows.filter((r) => r.id === first.id);
  return {
    user: Object.fromEntries(userColumns.map((c) => [c, first[c]])) as unknown as UserRow,
    encryptedPassword: (first.encrypted_password as string | null) ?? null,
    identities: mine
      .filter((r) => r.i_id !== null)
      .map((r) => Object.fromEntries(identityColumns.map((c) => [c, r[`i_${c}`]])) as unknown as IdentityRow),
    factors: (first.factors_json as FactorRow[] | null) ?? [],
  };
}

const signInWrite = prepared(
  (
    db: Executor,
    sessionId: string, userId: string, at: string, userAgent: string, ip: string, amrId: string, method: string,
    token: string, provider: string, auditId: string, auditPayload: string, auditIp: string,
  ) =>
    db
      .with('session', (qb) =>
        qb
          .insertInto('auth.sessions')
          .values({ id: sessionId, user_id: userId, aal: 'aal1', created_at: at, updated_at: at, user_agent: userAgent, ip })
          .returning('id'),
      )
      .with('amr', (qb) =>
        qb
          .insertInto('auth.mfa_amr_claims')
          .columns(['id', 'session_id', 'authentication_method', 'created_at', 'updated_at'])
          .expression((eb) =>
            eb.selectFrom('session').select([
              sql`${amrId}::uuid`.as('id'), 'session.id', sql`${method}::text`.as('m'), sql`${at}::timestamptz`.as('c'), sql`${at}::timestamptz`.as('u'),
            ]),
          )
          .returning('id'),
      )
      .with('token', (qb) =>
        qb
          .insertInto('auth.refresh_tokens')
          .columns(['instance_id', 'token', 'user_id', 'session_id', 'parent', 'revoked', 'created_at', 'updated_at'])
          .expression((eb) =>
            eb.selectFrom('session').select([
              sql`${NIL_UUID}::uuid`.as('i'), sql`${token}::text`.as('t'), sql`${userId}::text`.as('uid'), 'session.id', sql`null::text`.as('p'),
              sql`false`.as('r'), sql`${at}::timestamptz`.as('c'), sql`${at}::timestamptz`.as('u'),
            ]),
          )
          .returning('id'),
      )
      .with('signed_in', (qb) => qb.updateTable('auth.users').set({ last_sign_in_at: at, updated_at: at }).where('id', '=', userId).returning('id'))
      .with('identity', (qb) =>
        qb
          .updateTable('auth.identities')
          .set({ last_sign_in_at: at, updated_at: at })
          .where('user_id', '=', userId)
          .where('provider', '=', provider)
          .returning('id'),
      )
      .insertInto('auth.audit_log_entries')
      .values({ instance_id: NIL_UUID, id: auditId, payload: auditPayload, created_at: at, ip_address: auditIp }),
);

export async function recordPasswordSignIn(
  db: Executor,
  input: {
    sessionId: string; userId: string; at: Date; userAgent: string | null; ip: string | null; method: string;
    refreshToken: string; provider: string; audit: { payload: Record<string, unknown>; ip: string };
  },
): Promise<void> {
  await signInWrite(
    db, db,
    input.sessionId, input.userId, input.at.toISOString(), input.userAgent as string, input.ip as string, randomUUID(), input.method,
    input.refreshToken, input.provider, randomUUID(), JSON.stringify(input.audit.payload), input.audit.ip,
  );
}
