import { CompiledQuery, sql } from 'kysely';
import { executeNamed } from '@keyzone/db';
import type { Db } from './db';
import type { UserRow } from './users';

export interface StoredSession {
  id: number;
  data: Record<string, unknown>;
  lastSeenAt: Date | null;
  /** Fresh from dns.users, so a demoted or moved user loses rights on the next request. */
  groupId: number;
  isAdmin: boolean;
  /** The signed-in user's row and group name, read in the same query (GET /session, /user need no more). */
  user: UserRow;
  groupName: string;
}

/** The session lookup as a builder; findLiveSession runs it compiled once per Kysely instance. */
function liveSessionQuery(db: Db, sid: string, now: Date) {
  return db
    .selectFrom('dns.sessions as s')
    .innerJoin('dns.users as u', 'u.id', 's.user_id')
    .innerJoin('dns.groups as g', 'g.id', 'u.group_id')
    .select([
      's.id',
      's.data',
      's.last_seen_at',
      'u.id as user_id',
      'u.group_id',
      'u.username',
      'u.email',
      'u.first_name',
      'u.last_name',
      'u.is_admin',
      'u.inherit_group_permissions',
      'g.name as group_name',
    ])
    .where('s.sid', '=', sid)
    .where('s.expires_at', '>', now)
    .where('u.deleted_at', 'is', null)
    .where('g.deleted_at', 'is', null);
}

type LiveSessionRow = NonNullable<Awaited<ReturnType<ReturnType<typeof liveSessionQuery>['executeTakeFirst']>>>;

// This read runs on every request that carries a cookie. Kysely would rebuild and recompile the same SQL each
// time (a measurable share of the request's CPU), so the SQL is compiled once per Kysely instance (its plugins
// shape the SQL) and only the two parameters, sid and now, are bound per call. On PostgreSQL it also runs as a named
// statement, so the server parses and plans the join once per connection rather than on every request.
const compiledLiveSession = new WeakMap<Db, CompiledQuery<LiveSessionRow>>();
const SID_PLACEHOLDER = '\u0000sid';
const NOW_PLACEHOLDER = new Date(0);

function liveSessionStatement(db: Db, sid: string, now: Date): CompiledQuery<LiveSessionRow> {
  let compiled = compiledLiveSession.get(db);
  if (!compiled) {
    compiled = liveSessionQuery(db, SID_PLACEHOLDER, NOW_PLACEHOLDER).compile();
    const [first, second] = compiled.parameters;
    if (compiled.parameters.length !== 2 || first !== SID_PLACEHOLDER || second !== NOW_PLACEHOLDER) {
      throw new Error('findLiveSession: unexpected parameters in the compiled lookup');
    }
    compiledLiveSession.set(db, compiled);
  }
  return CompiledQuery.raw(compiled.sql, [sid, now]) as CompiledQuery<LiveSessionRow>;
}

/** A live session of a live user in a live group; undefined when unknown, expired, or the user/group is deleted. */
export async function findLiveSession(db: Db, sid: string, now: Date): Promise<StoredSession | undefined> {
  const [row] = await executeNamed(db, 'dns_live_session', liveSessionStatement(db, sid, now));
  if (!row) return undefined;
  const data = typeof row.data === 'string' ? (JSON.parse(row.data) as Record<string, unknown>) : (row.data as Record<string, unknown>);
  const user: UserRow = {
    id: row.user_id,
    group_id: row.group_id,
    username: row.username,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    is_admin: row.is_admin,
    inherit_group_permissions: row.inherit_group_permissions,
    deleted_at: null,
  };
  return { id: row.id, data, lastSeenAt: row.last_seen_at, groupId: row.group_id, isAdmin: row.is_admin, user, groupName: row.group_name };
}

export async function nextSessionId(db: Db): Promise<number> {
  const result = await sql<{ id: string | number }>`select nextval('dns.sessions_id_seq') as id`.execute(db);
  return Number(result.rows[0]!.id);
}

/** Insert at login; later saves only replace data (the expiry stays absolute: one hour from login). */
export async function upsertSession(
  db: Db,
  row: { id: number; sid: string; userId: number; data: Record<string, unknown>; expiresAt: Date; now: Date },
): Promise<void> {
  await db
    .insertInto('dns.sessions')
    .values({
      id: row.id,
      sid: row.sid,
      user_id: row.userId,
      data: JSON.stringify(row.data),
      expires_at: row.expiresAt,
      created_at: row.now,
      last_seen_at: row.now,
    })
    .onConflict((oc) => oc.column('sid').doUpdateSet({ data: (eb) => eb.ref('excluded.data') }))
    .execute();
}

export async function deleteSession(db: Db, sid: string): Promise<void> {
  await db.deleteFrom('dns.sessions').where('sid', '=', sid).execute();
}

/** Ends a user's sessions, optionally sparing one (the caller's own when they change their password). */
export async function deleteSessionsOfUser(db: Db, userId: number, exceptSessionId?: number): Promise<void> {
  let query = db.deleteFrom('dns.sessions').where('user_id', '=', userId);
  if (exceptSessionId !== undefined) query = query.where('id', '!=', exceptSessionId);
  await query.execute();
}

export async function markSeen(db: Db, sid: string, now: Date): Promise<void> {
  await db.updateTable('dns.sessions').set({ last_seen_at: now }).where('sid', '=', sid).execute();
}

export async function deleteExpiredSessions(db: Db, now: Date): Promise<number> {
  const result = await db.deleteFrom('dns.sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
