// RATE_LIMIT_EMAIL_SENT (service-wide, counted in the database), SMTP_MAX_FREQUENCY, and mail the
// server refuses: retried from the outbox, never a failed request.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type AuthDatabase } from '@keyzone/db';
import { createApp } from '../../src/app';
import { call } from '../helpers/http';
import { uniqueEmail } from '../helpers/users';
import { codeOf, startEmailTestServer, type EmailTestServer } from '../helpers/email-server';

let server: EmailTestServer;

beforeAll(async () => {
  // Sign-up confirmations to new addresses may use half of the service-wide budget (issue 26): 3 of these 6.
  server = await startEmailTestServer({ env: { RATE_LIMIT_EMAIL_SENT: '6' } });
});
afterAll(async () => server?.close());

describe('email limits', () => {
  it('allows half of RATE_LIMIT_EMAIL_SENT per hour for new addresses across all users, then 429 until the hour has passed', async () => {
    server.clock.advance(7200);
    const emails = [uniqueEmail('budget'), uniqueEmail('budget'), uniqueEmail('budget'), uniqueEmail('budget')];
    for (const email of emails.slice(0, 3)) {
      expect((await call(server.url, 'POST', '/otp', { body: { email } })).status).toBe(200);
      await server.smtp.nextMessageTo(email);
    }
    const over = await call(server.url, 'POST', '/otp', { body: { email: emails[3] }, newShape: true });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ code: 'over_email_send_rate_limit', message: 'email rate limit exceeded' });
    // Nothing of the refused request stayed: no user was created.
    const created = await server.deps.db.selectFrom('auth.users').select('id').where('email', '=', emails[3]!).execute();
    expect(created).toHaveLength(0);

    server.clock.advance(3601);
    expect((await call(server.url, 'POST', '/otp', { body: { email: emails[3] } })).status).toBe(200);
    await server.smtp.nextMessageTo(emails[3]!);
  });

  it('two instances on one database share the budget', async () => {
    server.clock.advance(7200);
    // A second instance: its own app and connection pool, same database and mail server.
    const db2 = connect<AuthDatabase>(server.deps.config.db.url);
    const app2 = createApp({ ...server.deps, db: db2 });
    const http2: Server = await new Promise((resolve) => {
      const s = app2.listen(0, '127.0.0.1', () => resolve(s));
    });
    const url2 = `http://127.0.0.1:${(http2.address() as AddressInfo).port}`;
    try {
      const emails = [0, 1, 2, 3].map(() => uniqueEmail('shared'));
      const urls = [server.url, url2, server.url];
      for (const [i, email] of emails.slice(0, 3).entries()) {
        expect((await call(urls[i]!, 'POST', '/otp', { body: { email } })).status).toBe(200);
        await server.smtp.nextMessageTo(email);
      }
      const over = await call(url2, 'POST', '/otp', { body: { email: emails[3] } });
      expect(over.status).toBe(429);
      expect(over.body.msg).toBe('email rate limit exceeded');
    } finally {
      http2.closeAllConnections();
      await new Promise((resolve) => http2.close(resolve));
      await db2.destroy();
    }
  });

  it('SMTP_MAX_FREQUENCY applies per user and kind', async () => {
    server.clock.advance(7200);
    const email = uniqueEmail('freq');
    await call(server.url, 'POST', '/otp', { body: { email } }); // confirmation
    const first = await server.smtp.nextMessageTo(email);
    await call(server.url, 'POST', '/verify', { body: { type: 'signup', email, token: codeOf(first) } });
    // A different kind (recovery) is not held back by the confirmation just sent.
    expect((await call(server.url, 'POST', '/recover', { body: { email } })).status).toBe(200);
    await server.smtp.nextMessageTo(email);
    const again = await call(server.url, 'POST', '/recover', { body: { email } });
    expect(again.status).toBe(429);
    expect(again.body.msg).toBe('For security purposes, you can only request this after 60 seconds.');
  });

  it('a refused send does not reach the client: the outbox retries it and deletes it once sent', async () => {
    server.clock.advance(7200);
    const email = uniqueEmail('fail');
    server.smtp.failNext(2);
    const res = await call(server.url, 'POST', '/signup', { body: { email, password: 'password-123' } });
    expect(res.status).toBe(200);
    // Two refused attempts, then the third goes through (50 ms, then 100 ms later).
    const confirmation = await server.smtp.nextMessageTo(email);
    expect(confirmation.subject).toBe('Confirm your email address');
    const verified = await call(server.url, 'POST', '/verify', { body: { type: 'signup', email, token: codeOf(confirmation) } });
    expect(verified.status).toBe(200);
    await waitFor(async () => (await outboxRows()).length === 0);
  });

  it('a message the mail server keeps refusing stays queued with its error until it is dropped', async () => {
    server.clock.advance(7200);
    const email = uniqueEmail('down');
    server.smtp.failNext(1000);
    try {
      expect((await call(server.url, 'POST', '/otp', { body: { email } })).status).toBe(200);
      await waitFor(async () => (await outboxRows()).some((r) => r.recipient === email && r.attempts >= 2 && r.last_error !== null));
      const row = (await outboxRows()).find((r) => r.recipient === email)!;
      expect(row.last_error).toMatch(/554/);
      await waitFor(async () => !(await outboxRows()).some((r) => r.recipient === email), 30_000); // 10 attempts, then dropped
    } finally {
      server.smtp.failNext(-1000);
    }
  });
});

function outboxRows() {
  return server.deps.db.selectFrom('auth.mail_outbox').select(['recipient', 'attempts', 'last_error']).execute();
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
