import type { SessionData } from 'express-session';
import { createTestDatabase, type TestDatabase } from '@keyzone/db/testing';
import { KyselySessionStore } from '../src/http/session-store';
import { nextSessionId } from '../src/queries/sessions';
import { createUserWithGroup } from '../src/services/directory/bootstrap';
import { TestClock } from './helpers/server';
import type { DnsConfig } from '@keyzone/config';

const config = { security: { bcryptCost: 4 } } as DnsConfig;

// The store's contract with express-session, driven directly: get/set/destroy/touch on both engines.
describe.each(['postgres', 'pglite'] as const)('KyselySessionStore on %s', (kind) => {
  let database: TestDatabase;
  let store: KyselySessionStore;
  let clock: TestClock;
  let userId: number;

  const call = <T>(fn: (cb: (err?: unknown, value?: T) => void) => void) =>
    new Promise<T | undefined>((resolve, reject) => fn((err, value) => (err ? reject(err) : resolve(value))));
  const get = (sid: string) => call<SessionData | null>((cb) => store.get(sid, cb));
  const set = (sid: string, sess: Partial<SessionData>) => call((cb) => store.set(sid, sess as SessionData, cb));
  const lastSeen = async (sid: string) =>
    (await database.db.selectFrom('dns.sessions').select('last_seen_at').where('sid', '=', sid).executeTakeFirstOrThrow()).last_seen_at as Date;

  beforeAll(async () => {
    database = await createTestDatabase({ kind, migrate: 'dns' });
    clock = new TestClock();
    store = new KyselySessionStore(database.db, clock, 3600);
    userId = (await createUserWithGroup({ db: database.db, clock, config }, {
      group: 'store.example', username: 'storer', password: 'irrelevant-pass', email: 's@example.com', firstName: 'S', lastName: 'T', isAdmin: true,
    })).user.id;
  });
  afterAll(() => database?.destroy());

  const cookie = { originalMaxAge: 3600000, expires: new Date(Date.now() + 3600000), httpOnly: true, path: '/' };

  test('set then get: the data back, plus the live row id, group, admin flag and user', async () => {
    const rowId = await nextSessionId(database.db);
    await set('sid-a', { cookie, rowId, userId, groupId: 999, isAdmin: false } as Partial<SessionData>);
    const loaded = await get('sid-a');
    expect(loaded).toMatchObject({ rowId, userId, isAdmin: true, loaded: { user: { id: userId, username: 'storer' }, groupName: 'store.example' } });
    expect(loaded!.groupId).not.toBe(999); // the live value wins over what was stored
    expect((loaded as unknown as { cookie: { path: string } }).cookie.path).toBe('/');
  });

  test('a session without a user is not stored', async () => {
    await set('sid-anon', { cookie } as Partial<SessionData>);
    expect(await get('sid-anon')).toBeNull();
  });

  test('expiry is absolute and follows the injected clock; saving again does not extend it', async () => {
    const rowId = await nextSessionId(database.db);
    await set('sid-exp', { cookie, rowId, userId } as Partial<SessionData>);
    clock.advance(3000);
    await set('sid-exp', { cookie, rowId, userId, isAdmin: true } as Partial<SessionData>);
    clock.advance(599);
    expect(await get('sid-exp')).not.toBeNull();
    clock.advance(2);
    expect(await get('sid-exp')).toBeNull();
  });

  test('touch writes last_seen_at at most once a minute and never extends the session', async () => {
    const rowId = await nextSessionId(database.db);
    await set('sid-touch', { cookie, rowId, userId } as Partial<SessionData>);
    const first = await lastSeen('sid-touch');
    clock.advance(30);
    const sess = (await get('sid-touch'))!;
    await call((cb) => store.touch('sid-touch', sess, cb));
    expect((await lastSeen('sid-touch')).getTime()).toBe(first.getTime());
    clock.advance(31);
    const later = (await get('sid-touch'))!;
    await call((cb) => store.touch('sid-touch', later, cb));
    expect((await lastSeen('sid-touch')).getTime()).toBe(first.getTime() + 61_000);
    clock.advance(3600 - 61);
    expect(await get('sid-touch')).toBeNull();
  });

  test('destroy deletes the row; prune deletes expired rows', async () => {
    const rowId = await nextSessionId(database.db);
    await set('sid-gone', { cookie, rowId, userId } as Partial<SessionData>);
    await call((cb) => store.destroy('sid-gone', cb));
    expect(await get('sid-gone')).toBeNull();
    clock.advance(7200);
    await store.prune();
    const left = await database.db.selectFrom('dns.sessions').select('sid').execute();
    expect(left).toEqual([]);
  });
});
