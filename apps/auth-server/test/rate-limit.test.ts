// Request limits (reference §6.1, issue 18), counted in PostgreSQL: /token per client (the first value of
// RATE_LIMIT_HEADER, else the socket address), burst 30, refill RATE_LIMIT_TOKEN_REFRESH per 5 minutes; sign-ups
// and PUT /user at the OTP rate; anonymous sign-ins per hour. Two instances on one database share them.
import pino from 'pino';
import { call } from './helpers/http';
import { secondInstance, startTestServer, type TestServer } from './helpers/server';

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
  const { url: url2, close } = await secondInstance(server);
  try {
    const on = (url: string) =>
      call(url, 'POST', '/token?grant_type=password', { body: { email: 'nobody@example.com', password: 'x' }, headers: { 'x-real-client': '10.9.9.9' } });
    for (let i = 0; i < 30; i++) expect((await on(i % 2 ? url2 : server.url)).status).toBe(400);
    expect((await on(url2)).status).toBe(429);
    expect((await on(server.url)).status).toBe(429);
  } finally {
    await close();
  }
});

describe('a client gets exactly the burst plus the refill, on one instance or two, fast or slow (issue 24)', () => {
  // /token at 150 per 300 s: burst 30, one token every 2 s. The expectation comes from a plain token bucket.
  const BURST = 30;
  const RATE = 0.5;
  function idealAdmissions(requests: number, intervalSeconds: number): number {
    let tokens = BURST;
    let admitted = 0;
    for (let i = 0; i < requests; i += 1) {
      if (i > 0) tokens = Math.min(BURST, tokens + intervalSeconds * RATE);
      if (tokens >= 1) {
        tokens -= 1;
        admitted += 1;
      }
    }
    return admitted;
  }

  let limited: TestServer;
  let other: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    limited = await startTestServer({ env: { RATE_LIMIT_HEADER: 'X-Real-Client', RATE_LIMIT_TOKEN_REFRESH: '150' } });
    other = await secondInstance(limited);
  });
  afterAll(async () => {
    await other?.close();
    await limited?.close();
  });

  it.each([
    ['one instance, one request every 1.1 s', 1.1, false],
    ['two instances in turn, one request every 1.1 s', 1.1, true],
    ['one instance, one request every 0.3 s', 0.3, false],
    ['two instances in turn, one request every 0.3 s', 0.3, true],
    ['two instances in turn, all at once', 0, true],
  ])('%s', async (_label, interval, alternate) => {
    const client = `10.24.0.${Math.floor(interval * 10)}${alternate ? 1 : 0}`;
    const requests = 80;
    let admitted = 0;
    for (let i = 0; i < requests; i += 1) {
      if (i > 0) limited.clock.advance(interval);
      const url = alternate && i % 2 ? other.url : limited.url;
      const res = await call(url, 'POST', '/token?grant_type=password', {
        body: { email: 'nobody@example.com', password: 'x' },
        headers: { 'x-real-client': client },
      });
      expect([400, 429]).toContain(res.status);
      if (res.status === 400) admitted += 1;
    }
    const ideal = idealAdmissions(requests, interval);
    expect(Math.abs(admitted - ideal)).toBeLessThanOrEqual(1);
  });
});

describe('behind a trusted reverse proxy (issue 24)', () => {
  let proxied: TestServer;
  const warnings: string[] = [];
  beforeAll(async () => {
    proxied = await startTestServer({
      env: { TRUSTED_PROXIES: '127.0.0.1, ::1', RATE_LIMIT_TOKEN_REFRESH: '150', MAILER_AUTOCONFIRM: 'true' },
    });
  });
  afterAll(async () => {
    await proxied?.close();
  });

  const via = (url: string, forwardedFor: string) =>
    call(url, 'POST', '/token?grant_type=password', {
      body: { email: 'nobody@example.com', password: 'x' },
      headers: { 'x-forwarded-for': forwardedFor },
    });

  it('each client has its own bucket, and what the client writes into X-Forwarded-For does not change it', async () => {
    for (let i = 0; i < 30; i++) expect((await via(proxied.url, `203.0.113.${i}, 198.51.100.1`)).status).toBe(400);
    // the left-most entries are the client's own words: rotating them escapes nothing
    expect((await via(proxied.url, '203.0.113.99, 198.51.100.1')).status).toBe(429);
    expect((await via(proxied.url, '198.51.100.1')).status).toBe(429);
    expect((await via(proxied.url, '198.51.100.2')).status).toBe(400);
  });

  it('sessions and audit rows carry the client address, not the proxy\'s', async () => {
    const email = `proxied-${Date.now()}@example.com`;
    const signup = await call(proxied.url, 'POST', '/signup', {
      body: { email, password: 'password-123' },
      headers: { 'x-forwarded-for': '192.0.2.77' },
    });
    expect(signup.status).toBe(200);
    const session = await proxied.deps.db.selectFrom('auth.sessions').select(['ip']).where('user_id', '=', signup.body.user.id).executeTakeFirstOrThrow();
    expect(String(session.ip)).toBe('192.0.2.77');
    const audit = await proxied.deps.db.selectFrom('auth.audit_log_entries').select(['ip_address']).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    expect(audit.ip_address).toBe('192.0.2.77');
  });

  it('without a trusted proxy the header is ignored, and one warning says why every client shares a limit', async () => {
    const direct = await startTestServer({
      env: { RATE_LIMIT_TOKEN_REFRESH: '150' },
      configure: (deps) => ({
        ...deps,
        log: pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line).msg) }),
      }),
    });
    try {
      for (let i = 0; i < 30; i++) expect((await via(direct.url, `198.51.100.${i}`)).status).toBe(400);
      expect((await via(direct.url, '198.51.100.200')).status).toBe(429);
      const warned = warnings.filter((m) => m.includes('not a trusted proxy'));
      expect(warned).toHaveLength(1);
      expect(warned[0]).toContain('AUTH_TRUSTED_PROXIES');
    } finally {
      await direct.close();
    }
  });
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
