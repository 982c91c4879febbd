// The refresh fast path: ONE statement (autocommit) that, when the presented token is live, its
// session is not locked by another refresh, not expired, and the user not banned,
//   locks the session row (FOR UPDATE SKIP LOCKED), revokes the token (only if still unrevoked),
//   inserts the child, marks the session refreshed, writes the token_revoked + token_refreshed
//   audit rows, and returns the session, user, identities and AMR claims.
// The session must belong to the OAuth client presenting the token (none for first-party /token).
// Any other case returns no row and the caller takes the transactional path in refresh.ts, which
// tells the cases apart (locked → retry / 409, revoked → reuse grace or detection, banned, ...).
// The audit payload is built in SQL with the same fields as services/platform/audit.ts auditEntry().
import { sql } from 'kysely';
import { identityColumns, sessionColumns, userColumns, type IdentityRow, type SessionRow, type UserRow } from './columns';
import type { FactorRow } from './mfa';
import { prepared } from './prepared';
import { NIL_UUID, type Executor } from './users';

const cols = (alias: string, names: readonly string[]) => sql.join(names.map((c) => sql.ref(`${alias}.${c}`)));
const sessionsT = sql.table('auth.sessions');
const tokensT = sql.table('auth.refresh_tokens');
const usersT = sql.table('auth.users');
const identitiesT = sql.table('auth.identities');
const amrT = sql.table('auth.mfa_amr_claims');
const factorsT = sql.table('auth.mfa_factors');
const auditT = sql.table('auth.audit_log_entries');

const fastRefresh = prepared((_db: Executor, token: string, at: string, child: string, userAgent: string, ip: string, auditIp: string, oauthClientId: string) =>
  sql<Record<string, unknown>>`
    WITH locked AS (
      SELECT s.id FROM ${sessionsT} s
      JOIN ${tokensT} t ON t.session_id = s.id
      JOIN ${usersT} u ON u.id = s.user_id
      WHERE t.token = ${token} AND t.revoked = false
        AND (s.not_after IS NULL OR s.not_after > ${at}::timestamptz)
        AND (u.banned_until IS NULL OR u.banned_until <= ${at}::timestamptz)
        AND s.oauth_client_id IS NOT DISTINCT FROM ${oauthClientId}::uuid
      FOR UPDATE OF s SKIP LOCKED
    ), revoked AS (
      UPDATE ${tokensT} SET revoked = true, updated_at = ${at}::timestamptz
      WHERE token = ${token} AND revoked = false AND session_id IN (SELECT id FROM locked)
      RETURNING token, user_id, session_id
    ), minted AS (
      INSERT INTO ${tokensT} (instance_id, token, user_id, session_id, parent, revoked, created_at, updated_at)
      SELECT ${NIL_UUID}::uuid, ${child}, r.user_id, r.session_id, r.token, false, ${at}::timestamptz, ${at}::timestamptz FROM revoked r
      RETURNING id
    ), refreshed AS (
      UPDATE ${sessionsT} SET refreshed_at = ${at}::timestamptz, updated_at = ${at}::timestamptz,
        user_agent = ${userAgent}, ip = ${ip}::inet
      WHERE id IN (SELECT session_id FROM revoked)
      RETURNING ${sql.join(sessionColumns.map((c) => sql.ref(c)))}
    ), audited AS (
      INSERT INTO ${auditT} (instance_id, id, payload, created_at, ip_address)
      SELECT ${NIL_UUID}::uuid, gen_random_uuid(),
        jsonb_strip_nulls(jsonb_build_object(
          'actor_id', u.id,
          'actor_username', coalesce(nullif(u.email, ''), nullif(u.phone, ''), ''),
          'actor_name', CASE WHEN jsonb_typeof(u.raw_user_meta_data -> 'full_name') = 'string' THEN u.raw_user_meta_data ->> 'full_name' END,
          'actor_via_sso', u.is_sso_user,
          'action', a.action,
          'log_type', 'token')),
        ${at}::timestamptz, ${auditIp}
      FROM refreshed s JOIN ${usersT} u ON u.id = s.user_id
      CROSS JOIN (VALUES ('token_revoked', 1), ('token_refreshed', 2)) AS a(action, n)
      RETURNING id
    )
    SELECT ${sql.join(sessionColumns.map((c) => sql`s.${sql.ref(c)} AS ${sql.ref(`s_${c}`)}`))}, ${cols('u', userColumns)},
      (SELECT coalesce(json_agg(i), '[]'::json) FROM (
        SELECT ${cols('x', identityColumns)} FROM ${identitiesT} x WHERE x.user_id = u.id ORDER BY x.created_at) i) AS identities,
      (SELECT coalesce(json_agg(a), '[]'::json) FROM (
        SELECT m.authentication_method, m.updated_at FROM ${amrT} m WHERE m.session_id = s.id ORDER BY m.updated_at DESC) a) AS amr,
      -- Most users have no factor: an index probe decides, and json_agg runs only for those who do.
      CASE WHEN EXISTS (SELECT 1 FROM ${factorsT} f0 WHERE f0.user_id = u.id)
        THEN (SELECT json_agg(f ORDER BY f.created_at) FROM ${factorsT} f WHERE f.user_id = u.id) END AS factors,
      (SELECT count(*) FROM audited) AS audited,
      (SELECT t0.revoked FROM ${tokensT} t0 WHERE t0.token = ${token}) AS seen_revoked
    FROM (SELECT 1) AS one LEFT JOIN (refreshed s JOIN ${usersT} u ON u.id = s.user_id) ON true`,
);

export interface FastRefresh {
  session: SessionRow;
  user: UserRow;
  identities: IdentityRow[];
  factors: FactorRow[];
  amr: { authentication_method: string; updated_at: string }[];
}

/**
 * `refreshed`: the simple case was done. Otherwise nothing was written, and `seenLive` tells whether
 * the token was unrevoked in this statement's snapshot: a request that saw it live and lost the
 * lock to a concurrent refresh is a race, not reuse (services/sessions/refresh.ts).
 */
export type FastRefreshResult = { refreshed: FastRefresh } | { refreshed: undefined; seenLive: boolean };

export async function tryFastRefresh(
  root: Executor,
  input: {
    token: string; child: string; at: Date; userAgent: string | null; ip: string | null; auditIp: string;
    /** The OAuth client the session must belong to; null: a first-party session. */
    oauthClientId?: string | null;
  },
): Promise<FastRefreshResult> {
  const [row] = await fastRefresh(root, root, input.token, input.at.toISOString(), input.child, input.userAgent as string, input.ip as string, input.auditIp,
    (input.oauthClientId ?? null) as string);
  if (!row || row.s_id === null) return { refreshed: undefined, seenLive: row?.seen_revoked === false };
  return { refreshed: toFastRefresh(row) };
}

function toFastRefresh(row: Record<string, unknown>): FastRefresh {
  const session = Object.fromEntries(sessionColumns.map((c) => [c, row[`s_${c}`]])) as unknown as SessionRow;
  const user = Object.fromEntries(userColumns.map((c) => [c, row[c]])) as unknown as UserRow;
  return { session, user, identities: row.identities as IdentityRow[], factors: (row.factors as FactorRow[] | null) ?? [], amr: row.amr as FastRefresh['amr'] };
}
