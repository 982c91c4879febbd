// MFA recovery codes end to end over real HTTP, on auth-js 2.119's wire (mfa.recoveryCodes.*): that version needs
// Node 22, so `authJs` below sends exactly what its _request does (the 2024-01-01 API version header, the bearer
// token, a JSON content type on every non-GET request, and no body when the method has none).
import { createHash } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server';
import { call, type Json } from '../helpers/http';
import { authenticatorCode } from '../helpers/totp';
import { claimsOf, signIn, signUp } from '../helpers/users';

jest.setTimeout(60_000);

let server: TestServer;
let limited: TestServer;
let off: TestServer;

const RECOVERY = { MAILER_AUTOCONFIRM: 'true', MFA_RECOVERY_CODES_ENROLL_ENABLED: 'true', MFA_RECOVERY_CODES_VERIFY_ENABLED: 'true' };

beforeAll(async () => {
  [server, limited, off] = await Promise.all([
    startTestServer({ env: { ...RECOVERY, MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: '1000' } }),
    startTestServer({ env: { ...RECOVERY, MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: '2' } }),
    startTestServer({ env: { MAILER_AUTOCONFIRM: 'true' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.close(), limited?.close(), off?.close()]);
});

async function authJs(s: TestServer, method: string, path: string, jwt: string, body?: object): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = { 'X-Supabase-Api-Version': '2024-01-01', Authorization: `Bearer ${jwt}` };
  if (method !== 'GET') headers['Content-Type'] = 'application/json;charset=UTF-8';
  const res = await fetch(`${s.url}/auth/v1${path}`, { method, headers, body: method === 'GET' ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

const adminToken = async (s: TestServer) => s.deps.jwt.sign({ role: 'service_role', sub: 'test-admin' }, { expiresInSeconds: 3600, now: s.clock.now() });

/** A user with a verified TOTP factor: its password, and an AAL2 session from the TOTP verification. */
async function userWithTotp(s: TestServer) {
  const user = await signUp(s.url);
  const enrolled = await call(s.url, 'POST', '/factors', { token: user.access_token, body: { factor_type: 'totp' } });
  const challenge = await call(s.url, 'POST', `/factors/${enrolled.body.id}/challenge`, { token: user.access_token, body: {} });
  const verified = await call(s.url, 'POST', `/factors/${enrolled.body.id}/verify`, {
    token: user.access_token, body: { challenge_id: challenge.body.id, code: authenticatorCode(enrolled.body.totp.secret, s.clock.now()) },
  });
  expect(verified.status).toBe(200);
  s.clock.advance(30); // a TOTP step is accepted once
  return { email: user.email, password: user.password, userId: user.user.id as string, aal2: verified.body.access_token as string };
}

const aal1 = async (s: TestServer, u: { email: string; password: string }) => (await signIn(s.url, u.email, u.password)).access_token;
const grouped = (code: string) => (code.toUpperCase().match(/.{4}/g) ?? []).join('-');

it('generate (AAL2 only, shown once), list the state, verify → AAL2 with mfa/recovery_code, a used code is refused', async () => {
  const u = await userWithTotp(server);
  const low = await aal1(server, u);
  expect((await authJs(server, 'POST', '/factors/recovery-codes', low)).body.code).toBe('insufficient_aal');

  const generated = await authJs(server, 'POST', '/factors/recovery-codes', u.aal2, { friendly_name: 'Backup codes' });
  expect(generated.status).toBe(200);
  expect(generated.body).toMatchObject({ type: 'recovery_code', friendly_name: 'Backup codes', total: 10 });
  const codes = generated.body.codes as string[];
  expect(codes).toHaveLength(10);
  expect(new Set(codes).size).toBe(10);
  for (const c of codes) expect(c).toMatch(/^[0-9a-hjkmnp-tv-z]{16}$/);
  const factorId = generated.body.id as string;

  // Stored as SHA-256 of the canonical code, never the code.
  const stored = await server.deps.db.selectFrom('auth.mfa_recovery_codes').select('code_hash').where('factor_id', '=', factorId).execute();
  expect(stored.map((r) => r.code_hash).sort()).toEqual(codes.map((c) => createHash('sha256').update(c).digest('hex')).sort());

  const user = await authJs(server, 'GET', '/user', u.aal2);
  expect(user.body.factors).toEqual(expect.arrayContaining([expect.objectContaining({ id: factorId, factor_type: 'recovery_code', status: 'verified' })]));
  expect(await authJs(server, 'GET', '/factors/recovery-codes', low)).toEqual({ status: 200, body: { id: factorId, type: 'recovery_code', total: 10, remaining: 10 } });
  expect((await authJs(server, 'POST', '/factors/recovery-codes', u.aal2)).body.code).toBe('mfa_verified_factor_exists');
  expect((await authJs(server, 'POST', `/factors/${factorId}/challenge`, u.aal2, {})).status).toBe(422);

  // A new AAL1 session (a lost authenticator) reaches AAL2 with a code typed in groups and capitals.
  const session = await aal1(server, u);
  const other = await aal1(server, u);
  const verified = await authJs(server, 'POST', '/factors/recovery-codes/verify', session, { code: ` ${grouped(codes[0] as string)} ` });
  expect(verified.status).toBe(200);
  const claims = claimsOf(verified.body.access_token);
  expect(claims.aal).toBe('aal2');
  expect((claims.amr as { method: string }[]).map((a) => a.method)).toEqual(expect.arrayContaining(['password', 'mfa/recovery_code']));
  expect(verified.body.refresh_token).toBeTruthy();
  // The user's other AAL1 sessions end, as with any factor verification.
  expect((await call(server.url, 'GET', '/user', { token: other })).status).toBe(403);
  expect((await authJs(server, 'GET', '/factors/recovery-codes', verified.body.access_token)).body.remaining).toBe(9);

  const reuse = await authJs(server, 'POST', '/factors/recovery-codes/verify', await aal1(server, u), { code: codes[0] });
  expect(reuse).toEqual({ status: 422, body: expect.objectContaining({ code: 'mfa_verification_failed', message: 'Invalid recovery code entered' }) });

  const audit = await server.deps.db.selectFrom('auth.audit_log_entries').select('payload').execute();
  const traits = audit.map((r) => (r.payload as { traits?: Record<string, unknown> }).traits ?? {});
  expect(traits).toEqual(expect.arrayContaining([
    expect.objectContaining({ factor_id: factorId, action: 'recovery_codes_generated' }),
    expect.objectContaining({ factor_id: factorId, factor_type: 'recovery_code' }),
  ]));
});

it('regenerate invalidates the old codes and clears a lockout; five wrong codes lock verification', async () => {
  const u = await userWithTotp(server);
  const first = (await authJs(server, 'POST', '/factors/recovery-codes', u.aal2)).body;
  expect(first.friendly_name).toBe('Recovery codes');

  const session = await aal1(server, u);
  for (let i = 0; i < 5; i++) {
    expect((await authJs(server, 'POST', '/factors/recovery-codes/verify', session, { code: 'aaaa-bbbb-cccc-dddd' })).body.code).toBe('mfa_verification_failed');
  }
  const locked = await authJs(server, 'POST', '/factors/recovery-codes/verify', session, { code: first.codes[1] });
  expect(locked).toEqual({ status: 429, body: expect.objectContaining({ code: 'mfa_recovery_codes_locked' }) });

  const second = await authJs(server, 'POST', '/factors/recovery-codes/regenerate', u.aal2);
  expect(second.status).toBe(200);
  expect(second.body).toMatchObject({ id: first.id, type: 'recovery_code', friendly_name: 'Recovery codes', total: 10 });
  expect(second.body.codes).not.toContain(first.codes[1]);

  const old = await authJs(server, 'POST', '/factors/recovery-codes/verify', session, { code: first.codes[1] });
  expect(old.body.code).toBe('mfa_verification_failed');
  const fresh = await authJs(server, 'POST', '/factors/recovery-codes/verify', session, { code: second.body.codes[0] });
  expect(fresh.status).toBe(200);

  // A lockout ends by itself after a while.
  const again = await aal1(server, u);
  for (let i = 0; i < 5; i++) await authJs(server, 'POST', '/factors/recovery-codes/verify', again, { code: 'nope' });
  expect((await authJs(server, 'POST', '/factors/recovery-codes/verify', again, { code: second.body.codes[1] })).status).toBe(429);
  server.clock.advance(901);
  expect((await authJs(server, 'POST', '/factors/recovery-codes/verify', again, { code: second.body.codes[1] })).status).toBe(200);
});

it('delete (AAL2 only), and the admin removes a user’s recovery codes with the admin factor route', async () => {
  const u = await userWithTotp(server);
  const generated = (await authJs(server, 'POST', '/factors/recovery-codes', u.aal2)).body;
  expect((await authJs(server, 'DELETE', '/factors/recovery-codes', await aal1(server, u))).body.code).toBe('insufficient_aal');
  expect(await authJs(server, 'DELETE', '/factors/recovery-codes', u.aal2)).toEqual({ status: 200, body: { id: generated.id } });
  expect((await authJs(server, 'GET', '/factors/recovery-codes', u.aal2)).body.code).toBe('mfa_factor_not_found');
  expect((await authJs(server, 'DELETE', '/factors/recovery-codes', u.aal2)).body.code).toBe('mfa_factor_not_found');
  expect((await authJs(server, 'POST', '/factors/recovery-codes/regenerate', u.aal2)).body.code).toBe('mfa_factor_not_found');

  const again = (await authJs(server, 'POST', '/factors/recovery-codes', u.aal2)).body;
  const raised = (await authJs(server, 'POST', '/factors/recovery-codes/verify', await aal1(server, u), { code: again.codes[0] })).body.access_token as string;
  const admin = await adminToken(server);
  const listed = await call(server.url, 'GET', `/admin/users/${u.userId}/factors`, { token: admin });
  expect(listed.body).toEqual(expect.arrayContaining([expect.objectContaining({ id: again.id, factor_type: 'recovery_code' })]));
  const removed = await call(server.url, 'DELETE', `/admin/users/${u.userId}/factors/${again.id}`, { token: admin });
  expect(removed.status).toBe(200);
  expect((await authJs(server, 'GET', '/factors/recovery-codes', u.aal2)).body.code).toBe('mfa_factor_not_found');
  const left = await server.deps.db.selectFrom('auth.mfa_recovery_codes').select('id').where('factor_id', '=', again.id).execute();
  expect(left).toHaveLength(0);
  // The session the codes raised is back at AAL1.
  const refreshed = await call(server.url, 'GET', '/user', { token: raised });
  expect(refreshed.status).toBe(200);
  const sessionAal = await server.deps.db.selectFrom('auth.sessions').select('aal').where('id', '=', claimsOf(raised).session_id as string).executeTakeFirst();
  expect(sessionAal?.aal).toBe('aal1');
});

it('one code used from three sessions at the same moment raises exactly one', async () => {
  const u = await userWithTotp(server);
  const { codes } = (await authJs(server, 'POST', '/factors/recovery-codes', u.aal2)).body as { codes: string[] };
  const sessions = await Promise.all([1, 2, 3].map(() => aal1(server, u)));
  const answers = await Promise.all(sessions.map((jwt) => authJs(server, 'POST', '/factors/recovery-codes/verify', jwt, { code: codes[0] })));
  // The others are refused: the code is used (422), or their AAL1 session already ended with the first's success (403).
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((status) => status === 200)).toHaveLength(1);
  expect(statuses.filter((status) => status !== 200).every((status) => status === 422 || status === 403)).toBe(true);
  expect((await authJs(server, 'GET', '/factors/recovery-codes', u.aal2)).body.remaining).toBe(9);
});

it('verification carries the MFA request limits', async () => {
  const u = await userWithTotp(limited);
  const codes = (await authJs(limited, 'POST', '/factors/recovery-codes', u.aal2)).body.codes as string[];
  expect(codes).toHaveLength(10);
  const session = await aal1(limited, u);
  // MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY=2 a minute, per client and per user (the TOTP set-up used some of it).
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) statuses.push((await authJs(limited, 'POST', '/factors/recovery-codes/verify', session, { code: 'wrong' })).status);
  expect(statuses).toContain(429);
  const over = await authJs(limited, 'POST', '/factors/recovery-codes/verify', session, { code: codes[0] });
  expect(over.status).toBe(429);
  expect(over.body.code).toBe('over_request_rate_limit');
});

it('answers the *_not_enabled codes when the settings are off', async () => {
  const u = await userWithTotp(off);
  expect(await authJs(off, 'POST', '/factors/recovery-codes', u.aal2)).toEqual({ status: 422, body: expect.objectContaining({ code: 'mfa_recovery_codes_enroll_not_enabled' }) });
  expect((await authJs(off, 'POST', '/factors/recovery-codes/regenerate', u.aal2)).body.code).toBe('mfa_recovery_codes_enroll_not_enabled');
  expect((await authJs(off, 'POST', '/factors/recovery-codes/verify', u.aal2, { code: 'x' })).body.code).toBe('mfa_recovery_codes_verify_not_enabled');
});

it('recovery codes are never left as the only factor: removing the last other factor removes them too', async () => {
  const u = await userWithTotp(server);
  const totp = ((await authJs(server, 'GET', '/user', u.aal2)).body.factors as { id: string; factor_type: string }[]).find((f) => f.factor_type === 'totp');
  const generated = (await authJs(server, 'POST', '/factors/recovery-codes', u.aal2)).body;
  expect((await authJs(server, 'DELETE', `/factors/${totp?.id}`, u.aal2)).status).toBe(200);
  expect((await authJs(server, 'GET', '/factors/recovery-codes', u.aal2)).body.code).toBe('mfa_factor_not_found');
  const left = await server.deps.db.selectFrom('auth.mfa_recovery_codes').select('id').where('factor_id', '=', generated.id).execute();
  expect(left).toHaveLength(0);

  // The same when an admin removes the user's authenticator.
  const v = await userWithTotp(server);
  const codes = (await authJs(server, 'POST', '/factors/recovery-codes', v.aal2)).body;
  const factors = (await call(server.url, 'GET', `/admin/users/${v.userId}/factors`, { token: await adminToken(server) })).body as { id: string; factor_type: string }[];
  const authenticator = factors.find((f) => f.factor_type === 'totp');
  expect((await call(server.url, 'DELETE', `/admin/users/${v.userId}/factors/${authenticator?.id}`, { token: await adminToken(server) })).status).toBe(200);
  expect((await authJs(server, 'GET', '/factors/recovery-codes', v.aal2)).body.code).toBe('mfa_factor_not_found');
  expect(codes.id).toBeTruthy();
});
