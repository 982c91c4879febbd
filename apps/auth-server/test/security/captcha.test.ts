// Captcha: each guarded route needs a token the provider's siteverify accepts (a real HTTP stand-in that
// checks the secret and answers as hCaptcha and Turnstile do); a refusal, a missing token and a provider that
// does not answer in SECURITY_CAPTCHA_TIMEOUT are 400 captcha_failed; refresh grants and admins skip it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuthClient } from '@supabase/auth-js';
import { call } from '../helpers/http';
import { startTestServer, type TestServer } from '../helpers/server';
import { uniqueEmail } from '../helpers/users';

const SECRET = '0x4AAAAAAAtestsecret';
let siteverify: Server;
let server: TestServer;
const seen: URLSearchParams[] = [];
const held: ServerResponse[] = [];

beforeAll(async () => {
  siteverify = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(raw);
      seen.push(form);
      if (form.get('response') === 'never-answers') {
        held.push(res);
        return;
      }
      const ok = req.method === 'POST' && form.get('secret') === SECRET && form.get('response') === 'good-token';
      res.writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(ok ? { success: true, challenge_ts: new Date().toISOString(), hostname: 'localhost' } : { success: false, 'error-codes': ['invalid-input-response'] }));
    });
  });
  await new Promise<void>((resolve) => siteverify.listen(0, '127.0.0.1', resolve));
  server = await startTestServer({
    env: {
      MAILER_AUTOCONFIRM: 'true',
      SECURITY_CAPTCHA_ENABLED: 'true',
      SECURITY_CAPTCHA_PROVIDER: 'turnstile',
      SECURITY_CAPTCHA_SECRET: SECRET,
      SECURITY_CAPTCHA_TIMEOUT: '300ms',
      SECURITY_CAPTCHA_URL: `http://127.0.0.1:${(siteverify.address() as AddressInfo).port}/siteverify`,
    },
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  for (const res of held) res.destroy();
  siteverify.closeAllConnections();
  await new Promise((resolve) => siteverify.close(resolve));
});

const post = (path: string, body: Record<string, unknown>, token?: string) => call(server.url, 'POST', path, { body, token });

it('every guarded route refuses a missing or rejected token with 400 captcha_failed', async () => {
  const email = uniqueEmail('captcha');
  for (const [path, body] of [
    ['/signup', { email, password: 'captcha-pass-1' }],
    ['/token?grant_type=password', { email, password: 'captcha-pass-1' }],
    ['/otp', { email }],
    ['/magiclink', { email }],
    ['/recover', { email }],
    ['/resend', { type: 'signup', email }],
  ] as const) {
    const missing = await post(path, body);
    expect([path, missing.status, missing.body.error_code]).toEqual([path, 400, 'captcha_failed']);
    const rejected = await post(path, { ...body, gotrue_meta_security: { captcha_token: 'bad-token' } });
    expect([path, rejected.status, rejected.body.msg]).toEqual([path, 400, 'captcha protection: request disallowed (invalid-input-response)']);
  }
});

it('a good token passes (auth-js sends it in gotrue_meta_security), and the provider sees secret, token and IP', async () => {
  const auth = new AuthClient({ url: `${server.url}/auth/v1`, persistSession: false, autoRefreshToken: false, detectSessionInUrl: false });
  const email = uniqueEmail('captcha-ok');
  const signUp = await auth.signUp({ email, password: 'captcha-pass-2', options: { captchaToken: 'good-token' } });
  expect(signUp.error).toBeNull();
  expect(seen.at(-1)?.get('secret')).toBe(SECRET);
  expect(seen.at(-1)?.get('remoteip')).toBe('127.0.0.1');
  const signedIn = await auth.signInWithPassword({ email, password: 'captcha-pass-2', options: { captchaToken: 'good-token' } });
  expect(signedIn.error).toBeNull();

  // Refreshing needs no captcha; neither does an admin.
  const before = seen.length;
  const refreshed = await post('/token?grant_type=refresh_token', { refresh_token: signedIn.data.session!.refresh_token });
  expect(refreshed.status).toBe(200);
  const admin = await server.deps.jwt.sign({ role: 'service_role', sub: 'admin' }, { expiresInSeconds: 60, now: server.clock.now() });
  expect((await post('/signup', { email: uniqueEmail('by-admin'), password: 'captcha-pass-4' }, admin)).status).toBe(200);
  expect(seen.length).toBe(before);
});

it('a provider that does not answer within SECURITY_CAPTCHA_TIMEOUT is a refusal, not a hang', async () => {
  const res = await post('/signup', { email: uniqueEmail('slow'), password: 'captcha-pass-3', captcha_token: 'never-answers' });
  expect(res.status).toBe(400);
  expect(res.body.msg).toBe('captcha protection: request disallowed (turnstile did not answer: timeout)');
});

it("an OAuth client's token skips nothing, its user's admin role notwithstanding (it was granted scopes, not the admin's rights)", async () => {
  const clientToken = await server.deps.jwt.sign(
    { role: 'service_role', sub: 'admin', client_id: '6f1d2a4e-3b7c-4d5e-9f80-112233445566', scope: 'openid' },
    { expiresInSeconds: 60, now: server.clock.now() },
  );
  const res = await post('/signup', { email: uniqueEmail('by-client'), password: 'captcha-pass-5' }, clientToken);
  expect([res.status, res.body.error_code]).toEqual([400, 'captcha_failed']);
});
