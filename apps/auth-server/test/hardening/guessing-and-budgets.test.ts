// Issue 11: code guessing and mail floods. Per-client limits on the code and mail routes counted in
// PostgreSQL (shared by instances), a token burned after 5 wrong codes whoever sends them, and
// per-client / per-address email budgets in front of the global one that answer known and unknown
// addresses alike.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type AuthDatabase } from '@keyzone/db';
import { createApp } from '../../src/app';
import { call } from '../helpers/http';
import { uniqueEmail } from '../helpers/users';
import { codeOf, startEmailTestServer, type EmailTestServer } from '../helpers/email-server';

let server: EmailTestServer;

beforeAll(async () => {
  server = await startEmailTestServer({
    env: {
      RATE_LIMIT_HEADER: 'X-Client',
      RATE_LIMIT_VERIFY: '10',
      RATE_LIMIT_OTP: '6',
      RATE_LIMIT_EMAIL_SENT: '1000',
      RATE_LIMIT_EMAIL_SENT_PER_CLIENT: '4',
      RATE_LIMIT_EMAIL_SENT_PER_ADDRESS: '2',
      SMTP_MAX_FREQUENCY: '1',
    },
  });
});
afterAll(async () => server?.close());

let clientCounter = 0;
const newClient = () => `198.51.100.${++clientCounter}`;

async function confirmedUser(client = newClient()): Promise<string> {
  const email = uniqueEmail('guess');
  expect((await call(server.url, 'POST', '/signup', { body: { email, password: 'password-123' }, headers: { 'x-client': client } })).status).toBe(200);
  const mail = await server.smtp.nextMessageTo(email);
  const ok = await call(server.url, 'POST', '/verify', { body: { type: 'signup', email, token: codeOf(mail) }, headers: { 'x-client': client } });
  expect(ok.status).toBe(200);
  server.clock.advance(3601); // a fresh hour for every budget
  return email;
}

const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('code guessing', () => {
  it('RATE_LIMIT_VERIFY per client: 429 over_request_rate_limit with Retry-After, shared by two instances', async () => {
    server.clock.advance(3600);
    const client = newClient();
    const db2 = connect<AuthDatabase>(server.deps.config.db.url);
    const http2: Server = await new Promise((resolve) => {
      const s = createApp({ ...server.deps, db: db2 }).listen(0, '127.0.0.1', () => resolve(s));
    });
    const url2 = `http://127.0.0.1:${(http2.address() as AddressInfo).port}`;
    try {
      const attempt = (url: string) =>
        call(url, 'POST', '/verify', { body: { type: 'email', email: 'nobody@example.com', token: '123456' }, headers: { 'x-client': client } });
      for (let i = 0; i < 10; i++) expect((await attempt(i % 2 ? url2 : server.url)).status).toBe(403);
      const limited = await attempt(url2);
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ code: 429, error_code: 'over_request_rate_limit', msg: 'Request rate limit reached' });
      expect(limited.headers.get('retry-after')).toBe('30'); // 10 per 300 s: one every 30 s
      expect((await attempt(server.url)).status).toBe(429);
      // Another client is not held back.
      const other = await call(server.url, 'POST', '/verify', { body: { type: 'email', email: 'x@example.com', token: '1' }, headers: { 'x-client': newClient() } });
      expect(other.status).toBe(403);
      server.clock.advance(30);
      expect((await attempt(server.url)).status).toBe(403);
    } finally {
      http2.closeAllConnections();
      await new Promise((resolve) => http2.close(resolve));
      await db2.destroy();
    }
  });

  it('without a trusted header the socket address is the client', async () => {
    server.clock.advance(3600);
    const local = await startEmailTestServer({ env: { RATE_LIMIT_VERIFY: '3' } });
    try {
      const attempt = () => call(local.url, 'POST', '/verify', { body: { type: 'email', email: 'n@example.com', token: '1' } });
      for (let i = 0; i < 3; i++) expect((await attempt()).status).toBe(403);
      expect((await attempt()).status).toBe(429);
    } finally {
      await local.close();
    }
  });

  it('five wrong codes burn the token, from however many clients: the right code is then 403 otp_expired', async () => {
    const email = await confirmedUser();
    expect((await call(server.url, 'POST', '/otp', { body: { email }, headers: { 'x-client': newClient() } })).status).toBe(200);
    const code = codeOf(await server.smtp.nextMessageTo(email));
    for (let i = 0; i < 5; i++) {
      const res = await call(server.url, 'POST', '/verify', { body: { type: 'email', email, token: wrongCode(code) }, headers: { 'x-client': newClient() } });
      expect(res.status).toBe(403);
    }
    const right = await call(server.url, 'POST', '/verify', { body: { type: 'email', email, token: code }, headers: { 'x-client': newClient() }, newShape: true });
    expect(right.status).toBe(403);
    expect(right.body).toEqual({ code: 'otp_expired', message: 'Token has expired or is invalid' });
  });

  it('four wrong codes leave the token usable', async () => {
    const email = await confirmedUser();
    expect((await call(server.url, 'POST', '/magiclink', { body: { email }, headers: { 'x-client': newClient() } })).status).toBe(200);
    const code = codeOf(await server.smtp.nextMessageTo(email));
    for (let i = 0; i < 4; i++) {
      await call(server.url, 'POST', '/verify', { body: { type: 'magiclink', email, token: wrongCode(code) }, headers: { 'x-client': newClient() } });
    }
    const right = await call(server.url, 'POST', '/verify', { body: { type: 'magiclink', email, token: code }, headers: { 'x-client': newClient() } });
    expect(right.status).toBe(200);
  });
});

describe('mail routes and budgets', () => {
  it('RATE_LIMIT_OTP per client covers /otp, /magiclink, /recover and /resend together', async () => {
    server.clock.advance(3600);
    const client = newClient();
    const routes = ['/otp', '/magiclink', '/recover', '/resend', '/recover', '/otp'];
    for (const route of routes) {
      const body = route === '/resend' ? { type: 'signup', email: uniqueEmail('r') } : { email: uniqueEmail('r') };
      const res = await call(server.url, 'POST', route, { body, headers: { 'x-client': client } });
      expect(res.body?.error_code).not.toBe('over_request_rate_limit'); // the mail budget may say no first
      server.clock.advance(2);
    }
    const limited = await call(server.url, 'POST', '/recover', { body: { email: uniqueEmail('r') }, headers: { 'x-client': client } });
    expect(limited.status).toBe(429);
    expect(limited.body.error_code).toBe('over_request_rate_limit');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('per-address budget: known and unknown addresses get the same answers', async () => {
    const known = await confirmedUser();
    const unknown = uniqueEmail('nobody');
    const answers = async (email: string) => {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await call(server.url, 'POST', '/recover', { body: { email }, headers: { 'x-client': newClient() } })).status);
        server.clock.advance(2); // past SMTP_MAX_FREQUENCY
      }
      return statuses;
    };
    expect(await answers(known)).toEqual([200, 200, 429]);
    expect(await answers(unknown)).toEqual([200, 200, 429]);
    expect(server.smtp.pendingFor(unknown)).toHaveLength(0);
  });

  it('per-client budget: one client cannot empty the global one, and its 429 does not depend on the address', async () => {
    server.clock.advance(3601);
    const client = newClient();
    const known = await confirmedUser(newClient());
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      statuses.push((await call(server.url, 'POST', '/recover', { body: { email: uniqueEmail('flood') }, headers: { 'x-client': client } })).status);
      server.clock.advance(2);
    }
    expect(statuses).toEqual([200, 200, 200, 200]);
    const unknownOver = await call(server.url, 'POST', '/recover', { body: { email: uniqueEmail('flood') }, headers: { 'x-client': client } });
    const knownOver = await call(server.url, 'POST', '/recover', { body: { email: known }, headers: { 'x-client': client } });
    expect([unknownOver.status, knownOver.status]).toEqual([429, 429]);
    expect(unknownOver.body).toEqual(knownOver.body);
    // Other clients still get mail: the global budget was not drained.
    expect((await call(server.url, 'POST', '/recover', { body: { email: known }, headers: { 'x-client': newClient() } })).status).toBe(200);
    expect((await server.smtp.nextMessageTo(known)).subject).toBe('Reset your password');
  });

  it('requests for unknown addresses send nothing and spend nothing of the service-wide budget; new addresses get half of it (issue 26)', async () => {
    const reserved = await startEmailTestServer({
      env: { RATE_LIMIT_EMAIL_SENT: '6', RATE_LIMIT_EMAIL_SENT_PER_CLIENT: '3', RATE_LIMIT_HEADER: 'X-Client', SMTP_MAX_FREQUENCY: '1' },
    });
    try {
      const owner = uniqueEmail('owner');
      await call(reserved.url, 'POST', '/admin/users', { token: await reserved.adminToken(), body: { email: owner, password: 'password-123', email_confirm: true } });
      // Four clients spend their whole budgets on /recover for addresses of their choosing.
      for (const client of ['10.8.0.1', '10.8.0.2', '10.8.0.3', '10.8.0.4']) {
        for (let i = 0; i < 3; i++) {
          expect((await call(reserved.url, 'POST', '/recover', { body: { email: uniqueEmail('drain') }, headers: { 'x-client': client } })).status).toBe(200);
        }
      }
      // A stranger creating accounts gets half of the service-wide budget.
      const made = [];
      for (const client of ['10.9.0.1', '10.9.0.2']) {
        for (let i = 0; i < 2; i++) made.push((await call(reserved.url, 'POST', '/otp', { body: { email: uniqueEmail('made') }, headers: { 'x-client': client } })).status);
      }
      expect(made).toEqual([200, 200, 200, 429]);
      // The owner still gets the reset mail.
      expect((await call(reserved.url, 'POST', '/recover', { body: { email: owner }, headers: { 'x-client': '10.10.0.1' } })).status).toBe(200);
      expect((await reserved.smtp.nextMessageTo(owner)).subject).toBe('Reset your password');
    } finally {
      await reserved.close();
    }
  });

  it('a global budget that is used up answers 429 for known and unknown addresses alike', async () => {
    const tight = await startEmailTestServer({ env: { RATE_LIMIT_EMAIL_SENT: '1', SMTP_MAX_FREQUENCY: '1' } });
    try {
      // A confirmed account's magic link spends the one mail of the hour.
      const email = uniqueEmail('g');
      await call(tight.url, 'POST', '/admin/users', { token: await tight.adminToken(), body: { email, password: 'password-123', email_confirm: true } });
      expect((await call(tight.url, 'POST', '/otp', { body: { email } })).status).toBe(200);
      await tight.smtp.nextMessageTo(email);
      tight.clock.advance(2);
      const known = await call(tight.url, 'POST', '/recover', { body: { email } });
      const unknown = await call(tight.url, 'POST', '/recover', { body: { email: uniqueEmail('g') } });
      expect([known.status, unknown.status]).toEqual([429, 429]);
      expect(known.body).toEqual(unknown.body);
    } finally {
      await tight.close();
    }
  });
});
