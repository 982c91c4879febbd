import session from 'express-session';
import type { SessionData } from 'express-session';
import type { Clock } from '../clock';
import type { Db } from '../queries/db';
import { deleteExpiredSessions, deleteSession, findLiveSession, markSeen, upsertSession, type StoredSession } from '../queries/sessions';

type Callback = (err?: unknown) => void;

// Fields the store derives from the row on every read; never persisted inside `data`.
const DERIVED = ['rowId', 'groupId', 'isAdmin', 'lastSeenAt', 'loaded'] as const;
const SEEN_THROTTLE_MS = 60_000;

/**
 * express-session store over dns.sessions through Kysely, so it runs on pg and PGlite alike and several
 * instances share sessions. Expiry is checked in SQL against the injected clock (tests move time rather than
 * sleep) and is absolute: ttl from login, like the cookie. get() also re-reads the user's group and admin flag
 * and ignores sessions of deleted users or groups, so the session is exactly as valid as the account.
 */
export class KyselySessionStore extends session.Store {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ttlSeconds: number,
  ) {
    super();
  }

  override get(sid: string, callback: (err: unknown, session?: SessionData | null) => void): void {
    findLiveSession(this.db, sid, this.clock.now()).then(
      (row) => {
        if (!row) return callback(null, null);
        const data = {
          ...row.data,
          rowId: row.id,
          groupId: row.groupId,
          isAdmin: row.isAdmin,
          lastSeenAt: row.lastSeenAt ? row.lastSeenAt.getTime() : 0,
          loaded: new LoadedCaller(row.user, row.groupName),
        } as unknown as SessionData;
        callback(null, data);
      },
      (err) => callback(err),
    );
  }

  override set(sid: string, sess: SessionData, callback?: Callback): void {
    const cb = callback ?? noop;
    if (!sess.userId || !sess.rowId) return cb(); // nothing worth keeping before login
    const now = this.clock.now();
    const data: Record<string, unknown> = { ...(sess as unknown as Record<string, unknown>) };
    for (const key of DERIVED) delete data[key];
    upsertSession(this.db, {
      id: sess.rowId,
      sid,
      userId: sess.userId,
      data,
      expiresAt: new Date(now.getTime() + this.ttlSeconds * 1000),
      now,
    }).then(() => cb(), cb);
  }

  override destroy(sid: string, callback?: Callback): void {
    const cb = callback ?? noop;
    deleteSession(this.db, sid).then(() => cb(), cb);
  }

  /** Records activity at most once a minute; does not extend the session (expiry is absolute). */
  override touch(sid: string, sess: SessionData, callback?: Callback): void {
    const cb = callback ?? noop;
    if (!this.isDueForTouch(sess)) return cb();
    markSeen(this.db, sid, this.clock.now()).then(() => cb(), cb);
  }

  /** Whether touch() would write: the last recorded activity is a minute old (the read path asks first). */
  isDueForTouch(sess: SessionData): boolean {
    return !sess.lastSeenAt || this.clock.now().getTime() - sess.lastSeenAt >= SEEN_THROTTLE_MS;
  }

  /** Deletes expired rows; main.ts calls it periodically. */
  prune(): Promise<number> {
    return deleteExpiredSessions(this.db, this.clock.now());
  }
}

function noop(): void {}

/**
 * The caller's row and group name, derived from the database on every read and never saved. Hidden from
 * JSON.stringify: express-session hashes the session as JSON twice per request (on load and at the end, to see
 * whether it changed), and this has no business in that hash. A class, so no per-request closure or property
 * definition is needed to hide it.
 */
class LoadedCaller {
  constructor(
    readonly user: StoredSession['user'],
    readonly groupName: string,
  ) {}

  toJSON(): undefined {
    return undefined;
  }
}
