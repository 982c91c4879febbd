// Request limits (reference §6.1, issue 18), counted in PostgreSQL: /token per client (the first value of
// RATE_LIMIT_HEADER, else the socket address), burst 30, refill RATE_LIMIT_TOKEN_REFRESH per 5 minutes; sign-ups
// and PUT /user at the OTP rate; anonymous sign-ins per hour. Two instances on one database share them.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type AuthDatabase } from '@keyzone/db';
import { createApp } from '../src/app';
import { call } from './helpers/http';
import { startTestServer, type TestServer } from './helpers/server';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { RATE_LIMIT_HEADER: 'X-Real-Client', RATE_LIMIT_TOKEN_REFRESH: '150' } });
});
afterAll(async () => {
  await server?.close();
});

const attempt = (client?: string) =>
  call(server.url, 'POST', '/token?grant_type=password', {
    body: { email: 'nobody@example.com', password: 'wrong-password' },
    headers: client ? { 'x-real-client': client } : {},
  });

it('allows a burst of 30, then 429 over_request_rate_limit until the bucket refills', async () => {
  for (let i = 0; i < 30; i++) expect((await attempt('10.0.0.1')).status).toBe(400);
  const limited = await attempt('10.0.0.1');
  expect(limited.status).toBe(429);
  expect(limited.body).toEqual({ code: 429, error_code: 'over_request_rate_limit', msg: 'Request rate limit reached' });
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  expect((await attempt('10.0.0.2')).status).toBe(400); // another client has its own bucket
  server.clock.advance(2); // 150 per 300 s = one request every 2 s
  expect((await attempt('10.0.0.1')).status).toBe(400);
  expect((await attempt('10.0.0.1')).status).toBe(429);
});

it('without the header the socket address is the client (GoTrue would not limit at all)', async () => {
  const direct = await startTestServer({ env: { RATE_LIMIT_TOKEN_REFRESH: '150' } });
  try {
    const hit = () => call(direct.url, 'POST', '/token?grant_type=password', { body: { email: 'nobody@example.com', password: 'wrong-password' } });
    for (let i = 0; i < 30; i++) expect((await hit()).status).toBe(400);
    expect((await hit()).status).toBe(429);
  } finally {
    await direct.close();
  }
});

it('two instances on one database share the /token bucket', async () => {
  const db2 = connect<AuthDatabase>(server.deps.config.db.url);
  const second: Server = await new Promise((resolve) => {
    const s = createApp({ ...server.deps, db: db2 }).listen(0, '127.0.0.1', () => resolve(s));
  });
  const url2 = `http://127.0.0.1:${(second.address() as AddressInfo).port}`;
  try {
    const on = (url: string) =>
      call(url, 'POST', '/token?grant_type=password', { body: { email: 'nobody@example.com', password: 'x' }, headers: { 'x-real-client': '10.9.9.9' } });
    for (let i = 0; i < 30; i++) expect((await on(i % 2 ? url2 : server.url)).status).toBe(400);
    expect((await on(url2)).status).toBe(429);
    expect((await on(server.url)).status).toBe(429);
  } finally {
    second.closeAllConnections();
    await new Promise((resolve) => second.close(resolve));
    await db2.destroy();
  }
});

it('PUT /user and sign-ups have their own buckets at the OTP rate', async () => {
  const otp = await startTestServer({ env: { RATE_LIMIT_HEADER: 'X-Real-Client', RATE_LIMIT_OTP: '30', MAILER_AUTOCONFIRM: 'true' } });
  try {
    const headers = { 'x-real-client': '10.7.7.7' };
    for (let i = 0; i < 30; i++) expect((await call(otp.url, 'POST', '/signup', { body: { email: `s${i}-${Date.now()}@example.com`, password: 'password-123' }, headers })).status).toBe(200);
    expect((await call(otp.url, 'POST', '/signup', { body: { email: `over-${Date.now()}@example.com`, password: 'password-123' }, headers })).status).toBe(429);
    for (let i = 0; i < 30; i++) expect((await call(otp.url, 'PUT', '/user', { body: {}, headers })).status).toBe(401);
    expect((await call(otp.url, 'PUT', '/user', { body: {}, headers })).status).toBe(429);
  } finally {
    await otp.close();
  }
});

describe('sign-up limits', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({
      env: { RATE_LIMIT_HEADER: 'X-Real-Client', RATE_LIMIT_ANONYMOUS_USERS: '3', EXTERNAL_ANONYMOUS_USERS_ENABLED: 'true', DISABLE_SIGNUP: 'false' },
    });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('anonymous sign-ins: RATE_LIMIT_ANONYMOUS_USERS per hour per client', async () => {
    const anon = () => call(limited.url, 'POST', '/signup', { body: {}, headers: { 'x-real-client': '10.1.1.1' } });
    for (let i = 0; i < 3; i++) expect((await anon()).status).toBe(200);
    const res = await anon();
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ error_code: 'over_request_rate_limit' });
    limited.clock.advance(1200); // 3 per hour: one more after 20 minutes
    expect((await anon()).status).toBe(200);
  });
});
