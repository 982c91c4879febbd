// The email flows on embedded PGlite (the zero-setup default): the budget's advisory lock, the
// token store and PKCE run there too.
import { createHash, randomBytes } from 'node:crypto';
import { call } from '../helpers/http';
import { uniqueEmail } from '../helpers/users';
import { codeOf, follow, fragmentOf, linkOf, startEmailTestServer, type EmailTestServer } from '../helpers/email-server';

let server: EmailTestServer;

beforeAll(async () => {
  server = await startEmailTestServer({ kind: 'pglite' });
}, 60_000);
afterAll(async () => server?.close());

it('signs up, confirms by link, recovers by code and exchanges a PKCE magic link', async () => {
  const email = uniqueEmail('pglite-mail');
  expect((await call(server.url, 'POST', '/signup', { body: { email, password: 'password-123' } })).status).toBe(200);
  const confirmation = await server.smtp.nextMessageTo(email);
  const { location } = await follow(linkOf(confirmation), server.url);
  expect(fragmentOf(location).type).toBe('signup');

  server.clock.advance(61);
  expect((await call(server.url, 'POST', '/recover', { body: { email } })).status).toBe(200);
  const recovery = await server.smtp.nextMessageTo(email);
  const verified = await call(server.url, 'POST', '/verify', { body: { type: 'recovery', email, token: codeOf(recovery) } });
  expect(verified.status).toBe(200);

  server.clock.advance(61);
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  await call(server.url, 'POST', '/magiclink', { body: { email, code_challenge: challenge, code_challenge_method: 's256' } });
  const magic = await server.smtp.nextMessageTo(email);
  const back = await follow(linkOf(magic), server.url);
  const code = new URL(back.location).searchParams.get('code') ?? '';
  const session = await call(server.url, 'POST', '/token?grant_type=pkce', { body: { auth_code: code, code_verifier: verifier } });
  expect(session.status).toBe(200);
  expect(session.body.user.email).toBe(email);
});
