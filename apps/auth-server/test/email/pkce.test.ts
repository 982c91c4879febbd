// PKCE for email flows: code_challenge → pkce_ link → 303 ?code= → POST /token?grant_type=pkce.
import { createHash, randomBytes } from 'node:crypto';
import { call } from '../helpers/http';
import { uniqueEmail } from '../helpers/users';
import { codeOf, follow, fragmentOf, linkOf, startEmailTestServer, type EmailTestServer } from '../helpers/email-server';

let server: EmailTestServer;

beforeAll(async () => {
  server = await startEmailTestServer({ env: { URI_ALLOW_LIST: 'myapp://callback' } });
});
afterAll(async () => server?.close());

function pkcePair() {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function codeFrom(location: string): string {
  return new URL(location).searchParams.get('code') ?? '';
}

describe('PKCE email flows', () => {
  it('sign-up: the link redirects with ?code= which exchanges (once) for a session', async () => {
    const { verifier, challenge } = pkcePair();
    const email = uniqueEmail('pkce');
    const res = await call(server.url, 'POST', '/signup?redirect_to=myapp://callback', {
      body: { email, password: 'password-123', code_challenge: challenge, code_challenge_method: 's256' },
    });
    expect(res.status).toBe(200);
    const mail = await server.smtp.nextMessageTo(email);
    expect(linkOf(mail)).toMatch(/token=pkce_[0-9a-f]{56}&type=signup&redirect_to=myapp:\/\/callback$/);
    const { status, location } = await follow(linkOf(mail), server.url);
    expect(status).toBe(303);
    expect(location).toMatch(/^myapp:\/\/callback\?code=[0-9a-f-]{36}$/);
    const code = codeFrom(location);

    const wrong = await call(server.url, 'POST', '/token?grant_type=pkce', { body: { auth_code: code, code_verifier: 'x'.repeat(43) }, newShape: true });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('bad_code_verifier');

    const ok = await call(server.url, 'POST', '/token?grant_type=pkce', { body: { auth_code: code, code_verifier: verifier } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'bearer', user: { email } });
    expect(ok.body.user.email_confirmed_at).toBeDefined();
    const claims = JSON.parse(Buffer.from(ok.body.access_token.split('.')[1], 'base64url').toString());
    expect(claims.amr[0].method).toBe('email/signup');

    const reused = await call(server.url, 'POST', '/token?grant_type=pkce', { body: { auth_code: code, code_verifier: verifier } });
    expect(reused.status).toBe(404);
    expect(reused.body.error_code).toBe('flow_state_not_found');
  });

  it('recovery with a plain challenge; an exchange after the flow-state lifetime is 422 flow_state_expired', async () => {
    const email = uniqueEmail('pkce-rec');
    await call(server.url, 'POST', '/otp', { body: { email } });
    const confirmation = await server.smtp.nextMessageTo(email);
    await call(server.url, 'POST', '/verify', { body: { type: 'signup', email, token: codeOf(confirmation) } });
    server.clock.advance(61);

    const verifier = randomBytes(40).toString('base64url');
    await call(server.url, 'POST', '/recover', { body: { email, code_challenge: verifier, code_challenge_method: 'plain' } });
    const mail = await server.smtp.nextMessageTo(email);
    const { location } = await follow(linkOf(mail), server.url);
    expect(location).toMatch(/^http:\/\/localhost:3000\/?\?code=/);
    server.clock.advance(301);
    const late = await call(server.url, 'POST', '/token?grant_type=pkce', { body: { auth_code: codeFrom(location), code_verifier: verifier } });
    expect(late.status).toBe(422);
    expect(late.body.error_code).toBe('flow_state_expired');
  });

  it('a typed PKCE code still verifies with POST /verify (a session, never a code)', async () => {
    const { challenge } = pkcePair();
    const email = uniqueEmail('pkce-otp');
    await call(server.url, 'POST', '/otp', { body: { email, code_challenge: challenge, code_challenge_method: 's256' } });
    const mail = await server.smtp.nextMessageTo(email);
    const res = await call(server.url, 'POST', '/verify', { body: { type: 'email', email, token: codeOf(mail) } });
    expect(res.status).toBe(200);
    expect(res.body.access_token).toBeDefined();
  });

  it('errors of a PKCE link go to both the query and the fragment', async () => {
    const link = `${server.url}/verify?token=pkce_${'0'.repeat(56)}&type=magiclink&redirect_to=myapp://callback`;
    const { status, location } = await follow(link);
    expect(status).toBe(303);
    expect(new URL(location).searchParams.get('error_code')).toBe('otp_expired');
    expect(fragmentOf(location).error_code).toBe('otp_expired');
  });

  it('validates the grant input', async () => {
    const res = await call(server.url, 'POST', '/token?grant_type=pkce', { body: { auth_code: '' } });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('validation_failed');
    const half = await call(server.url, 'POST', '/otp', { body: { email: uniqueEmail(), code_challenge: 'a'.repeat(43) } });
    expect(half.status).toBe(400);
  });
});
