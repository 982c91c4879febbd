// RATE_LIMIT_EMAIL_SENT (service-wide, counted in the database), SMTP_MAX_FREQUENCY, and a failed
// send leaving nothing behind.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type AuthDatabase } from '@keyzone/db';
import { createApp } from '../../src/app';
import { call } from '../helpers/http';
import { uniqueEmail } from '../helpers/users';
import { codeOf, startEmailTestServer, type EmailTestServer } from '../helpers/email-server';

let server: EmailTestServer;

beforeAll(async () => {
  server = await startEmailTestServer({ env: { RATE_LIMIT_EMAIL_SENT: '3' } });
});
afterAll(async () => server?.close());

async function sentCount(): Promise<number> {
  const row = await server.deps.db.selectFrom('auth.email_send_log').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('email limits', () => {
  it('allows RATE_LIMIT_EMAIL_SENT mails per hour across all users, then 429 until the hour has passed', async () => {
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

  it('a failed send is 500 unexpected_failure and leaves no token, no user and no budget used', async () => {
    server.clock.advance(7200);
    const before = await sentCount();
    const email = uniqueEmail('fail');
    server.smtp.failNext();
    const res = await call(server.url, 'POST', '/signup', { body: { email, password: 'password-123' }, newShape: true });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ code: 'unexpected_failure', message: 'Error sending confirmation email' });
    expect(await server.deps.db.selectFrom('auth.users').select('id').where('email', '=', email).execute()).toHaveLength(0);
    expect(await sentCount()).toBe(before);

    // An existing user: the recovery token is not recorded as sent, so an immediate retry works.
    const ok = await call(server.url, 'POST', '/signup', { body: { email, password: 'password-123' } });
    expect(ok.status).toBe(200);
    const confirmation = await server.smtp.nextMessageTo(email);
    await call(server.url, 'POST', '/verify', { body: { type: 'signup', email, token: codeOf(confirmation) } });
    server.smtp.failNext();
    expect((await call(server.url, 'POST', '/recover', { body: { email } })).status).toBe(500);
    const user = await server.deps.db.selectFrom('auth.users').select(['id', 'recovery_sent_at', 'recovery_token']).where('email', '=', email).executeTakeFirstOrThrow();
    expect(user.recovery_sent_at).toBeNull();
    expect(user.recovery_token).toBe('');
    const tokens = await server.deps.db.selectFrom('auth.one_time_tokens').select('id').where('user_id', '=', user.id).execute();
    expect(tokens).toHaveLength(0);
    expect((await call(server.url, 'POST', '/recover', { body: { email } })).status).toBe(200);
    expect((await server.smtp.nextMessageTo(email)).subject).toBe('Reset your password');
  });
});
