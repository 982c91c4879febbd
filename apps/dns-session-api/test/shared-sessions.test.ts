import { createTestDatabase, type TestDatabase } from '@keyzone/db/testing';
import { PASSWORD, startTestServer, type TestServer } from './helpers/server';

// Two instances over one PostgreSQL database share sessions: the session lives in dns.sessions, not in memory.
describe('sessions shared by two instances', () => {
  let database: TestDatabase;
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    database = await createTestDatabase({ kind: 'postgres', migrate: 'dns' });
    a = await startTestServer({ database });
    b = await startTestServer({ database });
    await a.seedUser({ group: 'shared.example', username: 'roamer' });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await database?.destroy();
  });

  test('login on one, use on the other, logout on the other, rejected on both', async () => {
    const onA = a.client();
    const login = await onA.post('/session', { username: 'roamer@shared.example', password: PASSWORD });
    expect(login.status).toBe(200);
    const sessionId = login.body.session.id as number;
    const row = await database.db.selectFrom('dns.sessions').select(['id', 'user_id']).where('id', '=', sessionId).executeTakeFirst();
    expect(row).toEqual({ id: sessionId, user_id: login.body.user.id });

    const cookie = onA.cookieHeader();
    const onB = b.client();
    const seen = await onB.get('/session', { headers: { cookie } });
    expect(seen.status).toBe(200);
    expect(seen.body.session.id).toBe(sessionId);

    expect((await onB.delete('/session', { headers: { cookie } })).status).toBe(200);
    expect(await database.db.selectFrom('dns.sessions').select('id').where('id', '=', sessionId).executeTakeFirst()).toBeUndefined();
    expect((await onA.get('/session')).status).toBe(401);
    expect((await onB.get('/session', { headers: { cookie } })).status).toBe(401);
  });
});
