// The two statements of a refresh (reference §5.3), so the hot path is BEGIN, lock-and-read,
// write, COMMIT:
//   lockRefreshContext – locks the token's session (FOR UPDATE SKIP LOCKED), then reads the token,
//                        session, user, identities, AMR claims and the session's live token in one
//                        query. The read is a separate statement on purpose: under READ COMMITTED it
//                        takes its snapshot after the lock is held, so it sees everything the previous
//                        holder committed (a read in the locking statement could see a stale token row);
//   rotateRefreshToken – revoke the old token, insert the child, mark the session refreshed and
//                        write the audit rows, in one statement (data-modifying CTEs).
import { randomUUID } from 'node:crypto';
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import { identityColumns, sessionColumns, userColumns, type IdentityRow, type SessionRow, type UserRow } from './columns';
import { prepared } from './prepared';
import { NIL_UUID, type Executor } from './users';

export interface RefreshContext {
  token: { id: string; token: string; revoked: boolean; parent: string | null; updated_at: Date | string };
  session: SessionRow;
  user: UserRow;
  identities: IdentityRow[];
  amr: { authentication_method: string; updated_at: string }[];
  /** The newest non-revoked token of the session, if any. */
  live: { token: string; parent: string | null } | null;
}

const lockQuery = prepared((db: Executor, token: string) =>
  db
    .selectFrom('auth.sessions as s')
    .innerJoin('auth.refresh_tokens as t', 't.session_id', 's.id')
    .select('s.id')
    .where('t.token', '=', token)
    .forUpdate('s')
    .skipLocked(),
);

const readQuery = prepared((db: Executor, token: string, sessionId: string) =>
  db
    .selectFrom('auth.refresh_tokens as t')
    .innerJoin('auth.sessions as s', 's.id', 't.session_id')
    .innerJoin('auth.users as u', 'u.id', 's.user_id')
    .select(['t.id as t_id', 't.token as t_token', 't.revoked as t_revoked', 't.parent as t_parent', 't.updated_at as t_updated_at'])
    .select(sessionColumns.map((c) => `s.${c} as s_${c}` as const))
    .select(userColumns.map((c) => `u.${c}` as const))
    .select((eb) => [
      jsonArrayFrom(
        eb.selectFrom('auth.identities as i').select(identityColumns.map((c) => `i.${c}` as const)).whereRef('i.user_id', '=', 'u.id').orderBy('i.created_at'),
      ).as('identities'),
      jsonArrayFrom(
        eb
          .selectFrom('auth.mfa_amr_claims as a')
          .select(['a.authentication_method', 'a.updated_at'])
          .whereRef('a.session_id', '=', 's.id')
          .orderBy('a.updated_at', 'desc'),
      ).as('amr'),
      jsonObjectFrom(
        eb
          .selectFrom('auth.refresh_tokens as l')
          .select(['l.token', 'l.parent'])
          .whereRef('l.session_id', '=', 's.id')
          .where('l.revoked', '=', false)
          .orderBy('l.id', 'desc')
          .limit(1),
      ).as('live'),
    ])
    .where('t.token', '=', token)
    .where('s.id', '=', sessionId),
);

/**
 * undefined: unknown token, no session, or the session is locked by someone else (caller tells
 * them apart). `root` is the pool-level Kysely (compiled-query cache), `tx` the transaction.
 */
export async function lockRefreshContext(root: Executor, tx: Executor, token: string): Promise<RefreshContext | undefined> {
  const [locked] = await lockQuery(root, tx, token);
  if (!locked) return undefined;
  const [row] = await readQuery(root, tx, token, locked.id);
  if (!row) return undefined;
  const r = row as unknown as Record<string, unknown>;
  const session = Object.fromEntries(sessionColumns.map((c) => [c, r[`s_${c}`]])) as unknown as SessionRow;
  const user = Object.fromEntries(userColumns.map((c) => [c, r[c]])) as unknown as UserRow;
  return {
    token: {
      id: String(r.t_id),
      token: r.t_token as string,
      revoked: r.t_revoked === true,
      parent: (r.t_parent as string | null) ?? null,
      updated_at: r.t_updated_at as Date,
    },
    session,
    user,
    identities: r.identities as IdentityRow[],
    amr: r.amr as RefreshContext['amr'],
    live: (r.live as RefreshContext['live']) ?? null,
  };
}

export interface Rotation {
  oldTokenId: string | null;
  child: { token: string; parent: string } | null;
  userId: string;
  sessionId: string;
  at: Date;
  client: { user_agent: string | null; ip: string | null };
  audit: { payload: Record<string, unknown>; ip: string; at: Date }[];
}

// The common case (revoke + mint + two audit rows), compiled once.
const mintQuery = prepared(
  (
    db: Executor,
    at: string, userAgent: string, ip: string, sessionId: string, oldTokenId: string, token: string, userId: string,
    parent: string, audit1Id: string, audit1Payload: string, audit1Ip: string, audit2Id: string, audit2Payload: string, audit2Ip: string,
  ) =>
    db
      .with('refreshed', (qb) =>
        qb.updateTable('auth.sessions').set({ refreshed_at: at, updated_at: at, user_agent: userAgent, ip }).where('id', '=', sessionId).returning('id'),
      )
      .with('revoked', (qb) =>
        qb.updateTable('auth.refresh_tokens').set({ revoked: true, updated_at: at }).where('id', '=', oldTokenId).returning('id'),
      )
      .with('minted', (qb) =>
        qb
          .insertInto('auth.refresh_tokens')
          .values({ instance_id: NIL_UUID, token, user_id: userId, session_id: sessionId, parent, revoked: false, created_at: at, updated_at: at })
          .returning('id'),
      )
      .insertInto('auth.audit_log_entries')
      .values([
        { instance_id: NIL_UUID, id: audit1Id, payload: audit1Payload, created_at: at, ip_address: audit1Ip },
        { instance_id: NIL_UUID, id: audit2Id, payload: audit2Payload, created_at: at, ip_address: audit2Ip },
      ]),
);

/** Revokes + mints (when given) and always marks the session refreshed and writes the audit rows. */
export async function rotateRefreshToken(root: Executor, db: Executor, r: Rotation): Promise<void> {
  const [first, second] = r.audit;
  if (r.oldTokenId !== null && r.child !== null && first && second && r.audit.length === 2) {
    await mintQuery(
      root, db,
      r.at.toISOString(), r.client.user_agent as string, r.client.ip as string, r.sessionId, r.oldTokenId, r.child.token, r.userId,
      r.child.parent, randomUUID(), JSON.stringify(first.payload), first.ip, randomUUID(), JSON.stringify(second.payload), second.ip,
    );
    return;
  }
  let query = db.with('refreshed', (qb) =>
    qb
      .updateTable('auth.sessions')
      .set({ refreshed_at: r.at, updated_at: r.at, user_agent: r.client.user_agent, ip: r.client.ip })
      .where('id', '=', r.sessionId)
      .returning('id'),
  );
  if (r.oldTokenId !== null && r.child !== null) {
    const child = r.child;
    const oldTokenId = r.oldTokenId;
    query = query
      .with('revoked', (qb) =>
        qb.updateTable('auth.refresh_tokens').set({ revoked: true, updated_at: r.at }).where('id', '=', oldTokenId).returning('id'),
      )
      .with('minted', (qb) =>
        qb
          .insertInto('auth.refresh_tokens')
          .values({
            instance_id: NIL_UUID,
            token: child.token,
            user_id: r.userId,
            session_id: r.sessionId,
            parent: child.parent,
            revoked: false,
            created_at: r.at,
            updated_at: r.at,
          })
          .returning('id'),
      ) as unknown as typeof query;
  }
  await query
    .insertInto('auth.audit_log_entries')
    .values(
      r.audit.map((entry) => ({
        instance_id: NIL_UUID,
        id: randomUUID(),
        payload: JSON.stringify(entry.payload),
        created_at: entry.at,
        ip_address: entry.ip,
      })),
    )
    .execute();
}
