// MFA against a stolen password (issue 26): a challenge is burned after 5 wrong codes, challenge + verify are
// limited per client and per user (shared by instances), GoTrue's answers for unknown and reused challenges, and
// removing a factor (by the user or an admin) drops the sessions it raised back to AAL1.
import { call } from '../helpers/http';
import { startTestServer, type TestServer } from '../helpers/server';
import { authenticatorCode } from '../helpers/totp';
import { claimsOf, uniqueEmail } from '../helpers/users';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { MAILER_AUTOCONFIRM: 'true', MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: '12', SECURITY_SB_FORWARDED_FOR_ENABLED: 'true' } });
});
afterAll(async () => server?.close());

const ip = (n: number) => ({ 'sb-forwarded-for': `203.0.113.${n}` });

/** A signed-in user with a verified TOTP factor, at AAL2; the client address is `at`. */
async function userWithTotp(at: number) {
  const email = uniqueEmail('mfa-hard');
  await call(server.url, 'POST', '/signup', { body: { email, password: 'password-123' } });
  const session = (await call(server.url, 'POST', '/token?grant_type=password', { body: { email, password: 'password-123' } })).body;
  const factor = (await call(server.url, 'POST', '/factors', { token: session.access_token, body: { factor_type: 'totp' }, headers: ip(at) })).body;
  const challenge = (await call(server.url, 'POST', `/factors/${factor.id}/challenge`, { token: session.access_token, headers: ip(at) })).body.id;
  const verified = await call(server.url, 'POST', `/factors/${factor.id}/verify`, {
    token: session.access_token, body: { challenge_id: challenge, code: authenticatorCode(factor.totp.secret, server.clock.now()) }, headers: ip(at),
  });
  expect(verified.status).toBe(200);
  server.clock.advance(30); // each TOTP step is accepted once
  return { email, factor, aal2: verified.body as { access_token: string; refresh_token: string; user: { id: string } } };
}

const wrongFor = (secret: string) => (authenticatorCode(secret, server.clock.now()) === '000000' ? '111111' : '000000');

it('the 5th wrong code burns the challenge: the right code then finds nothing (422 mfa_factor_not_found)', async () => {
  const { factor, aal2 } = await userWithTotp(1);
  const token = aal2.access_token;
  const challenge = (await call(server.url, 'POST', `/factors/${factor.id}/challenge`, { token, headers: ip(1) })).body.id;
  const verify = (value: string) => call(server.url, 'POST', `/factors/${factor.id}/verify`, { token, body: { challenge_id: challenge, code: value }, headers: ip(1) });
  for (let i = 0; i < 5; i++) expect((await verify(wrongFor(factor.totp.secret))).body.error_code).toBe('mfa_verification_failed');
  const burned = await verify(authenticatorCode(factor.totp.secret, server.clock.now()));
  expect([burned.status, burned.body.error_code]).toEqual([422, 'mfa_factor_not_found']);
});

it('GoTrue\'s answers: an unknown challenge is 422 mfa_factor_not_found, a verified one 422 mfa_ip_address_mismatch', async () => {
  const { factor, aal2 } = await userWithTotp(2);
  const token = aal2.access_token;
  const unknown = await call(server.url, 'POST', `/factors/${factor.id}/verify`, { token, body: { challenge_id: crypto.randomUUID(), code: '123456' }, headers: ip(2) });
  expect([unknown.status, unknown.body.error_code]).toEqual([422, 'mfa_factor_not_found']);
  const challenge = (await call(server.url, 'POST', `/factors/${factor.id}/challenge`, { token, headers: ip(2) })).body.id;
  const body = { challenge_id: challenge, code: authenticatorCode(factor.totp.secret, server.clock.now()) };
  expect((await call(server.url, 'POST', `/factors/${factor.id}/verify`, { token, body, headers: ip(2) })).status).toBe(200);
  server.clock.advance(30);
  const again = await call(server.url, 'POST', `/factors/${factor.id}/verify`, {
    token, body: { ...body, code: authenticatorCode(factor.totp.secret, server.clock.now()) }, headers: ip(2),
  });
  expect([again.status, again.body.error_code]).toEqual([422, 'mfa_ip_address_mismatch']);
});

it('challenge + verify are limited per user, whatever address the guesses come from', async () => {
  const { factor, aal2 } = await userWithTotp(3); // the clock moved on: this user's bucket is full again
  const token = aal2.access_token;
  const statuses: number[] = [];
  for (let i = 0; i < 14; i++) {
    statuses.push((await call(server.url, 'POST', `/factors/${factor.id}/challenge`, { token, headers: ip(100 + i) })).status);
  }
  expect(statuses.slice(0, 12).every((s) => s === 200)).toBe(true);
  expect(statuses.slice(12)).toEqual([429, 429]);
  server.clock.advance(10); // 12 per minute: two more after 10 s
  expect((await call(server.url, 'POST', `/factors/${factor.id}/challenge`, { token, headers: ip(200) })).status).toBe(200);
});

it('challenge + verify are limited per client, whichever user it names', async () => {
  const users = [];
  for (let i = 0; i < 5; i++) users.push(await userWithTotp(40 + i));
  const statuses: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const { factor, aal2 } of users) {
      statuses.push((await call(server.url, 'POST', `/factors/${factor.id}/challenge`, { token: aal2.access_token, headers: ip(4) })).status);
    }
  }
  // 15 challenges from one client for 5 users (3 each, well under each user's 12): the client's 12 are spent.
  expect(statuses.filter((s) => s === 200)).toHaveLength(12);
  expect(statuses.slice(12)).toEqual([429, 429, 429]);
});

describe('removing a factor drops the sessions it raised to AAL1', () => {
  const refresh = (token: string) => call(server.url, 'POST', '/token?grant_type=refresh_token', { body: { refresh_token: token } });

  it('by the user (unenroll)', async () => {
    const { factor, aal2 } = await userWithTotp(5);
    expect(claimsOf(aal2.access_token)).toMatchObject({ aal: 'aal2' });
    expect((await call(server.url, 'DELETE', `/factors/${factor.id}`, { token: aal2.access_token })).status).toBe(200);
    const next = await refresh(aal2.refresh_token);
    expect(next.status).toBe(200);
    const claims = claimsOf(next.body.access_token);
    expect(claims.aal).toBe('aal1');
    expect((claims.amr as Array<{ method: string }>).map((a) => a.method)).toEqual(['password']);
  });

  it('by an admin (a lost or stolen authenticator)', async () => {
    const { factor, aal2 } = await userWithTotp(6);
    const admin = await server.deps.jwt.sign({ role: 'service_role', sub: 'test-admin' }, { expiresInSeconds: 3600, now: server.clock.now() });
    const removed = await call(server.url, 'DELETE', `/admin/users/${aal2.user.id}/factors/${factor.id}`, { token: admin });
    expect(removed.status).toBe(200);
    const next = await refresh(aal2.refresh_token);
    expect(next.status).toBe(200);
    expect(claimsOf(next.body.access_token).aal).toBe('aal1');
    expect((claimsOf(next.body.access_token).amr as Array<{ method: string }>).map((a) => a.method)).not.toContain('totp');
  });
});
