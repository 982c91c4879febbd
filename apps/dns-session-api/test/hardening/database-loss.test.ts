// Issue 12: while PostgreSQL is unreachable every route answers 503 with a retryable message, the keep-alive
// connection stays usable (a session that could not be read is neither deleted nor a second error that kills
// the socket), and the service recovers by itself. The database is taken away by a TCP proxy.
import http from 'node:http';
import { connect } from '@keyzone/db';
import { createTestDatabase, startTcpProxy, type TcpProxy, type TestDatabase } from '@keyzone/db/testing';
import { startTestServer, type TestServer } from '../helpers/server';

let database: TestDatabase;
let proxied: TestDatabase;
let proxy: TcpProxy;
let t: TestServer;
let userId: number;
let cookie: string;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  database = await createTestDatabase({ kind: 'postgres', migrate: 'dns' });
  const target = new URL(database.url);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  const url = proxy.urlFor(database.url);
  proxied = { ...database, url, db: connect(url, { connectTimeoutMs: 2000 }), destroy: async () => {} };
  t = await startTestServer({ database: proxied });
  ({ userId } = await t.seedUser({ group: 'loss.example', username: 'lois' }));
  cookie = (await t.login('lois@loss.example')).cookieHeader();
});
afterAll(async () => {
  agent.destroy();
  await proxy?.resume();
  await t?.close();
  await proxied?.db.destroy();
  await proxy?.close();
  await database?.destroy();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  reused: boolean;
}

function request(method: string, path: string, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers = { cookie, ...(body ? { 'content-type': 'application/json' } : {}) };
    const req = http.request(new URL(path, t.url), { method, agent, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined, reused: req.reusedSocket }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

it('answers 503 while the database is gone, keeps the connection and the session, and recovers by itself', async () => {
  expect((await request('GET', `/user/${userId}`)).status).toBe(200);
  await proxy.pause();
  const read = await request('GET', `/user/${userId}`);
  expect(read.status).toBe(503);
  expect(read.body).toEqual({ statusCode: 503, error: 'Service Unavailable', message: 'The database is unavailable; nothing was changed, please retry shortly' });
  expect(read.headers['retry-after']).toBe('5');
  expect(read.headers.connection).toBe('keep-alive');
  const write = await request('PUT', `/user/${userId}`, JSON.stringify({ first_name: 'Lo' }));
  expect(write.status).toBe(503);
  expect(write.reused).toBe(true);
  expect((await request('GET', '/health')).status).toBe(503);

  await proxy.resume();
  const again = await request('GET', `/user/${userId}`);
  expect(again.status).toBe(200); // the session survived the outage
  expect(again.reused).toBe(true); // and one keep-alive socket served every request
  expect((await request('PUT', `/user/${userId}`, JSON.stringify({ first_name: 'Lo' }))).status).toBe(200);
});
