// WebAuthn in a real browser (issue 31): headless Chromium with a DevTools virtual authenticator, a page that loads
// auth-js, and the server over real HTTP. The MFA factor (auth.mfa.webauthn.register / authenticate) and passkey
// sign-in (auth.registerPasskey / signInWithPasskey), and what must be refused: another origin, a replayed
// assertion, a counter that went back, a removed credential.
/* eslint-disable @typescript-eslint/no-explicit-any -- the page's auth-js is untyped across page.evaluate */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { Browser } from 'puppeteer-core';
import { chromiumPath, launchBrowser, pageWithAuthenticator, startPageServer, type AuthenticatorPage, type PageServer } from '../helpers/browser';
import { call } from '../helpers/http';
import { startTestServer, type TestServer } from '../helpers/server';
import { claimsOf, uniqueEmail } from '../helpers/users';

const browserPath = chromiumPath();
if (!browserPath) {
  console.warn('webauthn.test.ts: no Chromium found (apt-get install chromium, or CHROMIUM_PATH): the browser tests are skipped');
}
const describeInBrowser = browserPath ? describe : describe.skip;

let server: TestServer;
let pages: PageServer;
let elsewhere: PageServer;
let browser: Browser;
let admin: string;

beforeAll(async () => {
  if (!browserPath) return;
  [pages, elsewhere] = await Promise.all([startPageServer(), startPageServer()]);
  server = await startTestServer({
    env: {
      MAILER_AUTOCONFIRM: 'true', MFA_WEB_AUTHN_ENROLL_ENABLED: 'true', MFA_WEB_AUTHN_VERIFY_ENABLED: 'true', PASSKEY_ENABLED: 'true',
      WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_RP_DISPLAY_NAME: 'Keyzone test', WEBAUTHN_RP_ORIGINS: pages.origin,
    },
  });
  admin = await server.deps.jwt.sign({ role: 'service_role', sub: 'test-admin' }, { expiresInSeconds: 3600, now: server.clock.now() });
  browser = await launchBrowser(browserPath);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([server?.close(), pages?.close(), elsewhere?.close()]);
});

/**
 * A tab at `origin` (default the allowed one) with an authenticator and `window.auth`, an auth-js client of the
 * server. MFA tabs hold a security key: auth-js's WebAuthn factor asks for a cross-platform authenticator.
 */
async function tab(origin = pages.origin, transport: 'internal' | 'usb' = 'internal'): Promise<AuthenticatorPage> {
  const opened = await pageWithAuthenticator(browser, origin, transport);
  if (process.env.PAGE_LOG) opened.page.on('console', (m) => console.log('page:', m.text()));
  await opened.page.evaluate((url: string) => {
    const w = window as any;
    w.auth = new w.AuthClient({
      url, storageKey: 'kz', persistSession: true, autoRefreshToken: false, detectSessionInUrl: false, experimental: { passkey: true },
    });
  }, `${server.url}/auth/v1`);
  return opened;
}

async function signUpInPage(t: AuthenticatorPage, email = uniqueEmail('webauthn')): Promise<{ email: string; userId: string }> {
  const result = await t.page.evaluate(async (address: string) => {
    const { data, error } = await (window as any).auth.signUp({ email: address, password: 'password-123' });
    return { error: error?.message, userId: data?.user?.id };
  }, email);
  if (result.error) throw new Error(result.error);
  return { email, userId: result.userId };
}

async function accessToken(t: AuthenticatorPage): Promise<string> {
  return t.page.evaluate(async () => (await (window as any).auth.getSession()).data.session?.access_token ?? '');
}

const close = async (t: AuthenticatorPage) => t.page.close();

describeInBrowser('the WebAuthn MFA factor (auth.mfa.webauthn)', () => {
  it('registers, then authenticates a new password session to AAL2', async () => {
    const t = await tab(pages.origin, 'usb');
    try {
      const { email } = await signUpInPage(t);
      const registered = await t.page.evaluate(async () => {
        const { data, error } = await (window as any).auth.mfa.webauthn.register({ friendlyName: 'laptop' });
        return { error: error?.message, token: data?.access_token };
      });
      expect(registered.error).toBeUndefined();
      expect(claimsOf(registered.token!)).toMatchObject({ aal: 'aal2', amr: expect.arrayContaining([expect.objectContaining({ method: 'mfa/webauthn' })]) });

      // A new password session is AAL1 until the factor is used.
      const again = await t.page.evaluate(async (address: string) => {
        const w = window as any;
        await w.auth.signInWithPassword({ email: address, password: 'password-123' });
        const factors = await w.auth.mfa.listFactors();
        const factor = factors.data.webauthn[0];
        const before = (await w.auth.mfa.getAuthenticatorAssuranceLevel()).data;
        const { data, error } = await w.auth.mfa.webauthn.authenticate({ factorId: factor.id });
        return { before, error: error?.message, token: data?.access_token, refresh: data?.refresh_token, factorName: factor.friendly_name, factorId: factor.id };
      }, email);
      expect(again.before).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' });
      expect(again.error).toBeUndefined();
      expect(again.factorName).toBe('laptop');
      const claims = claimsOf(again.token!);
      expect(claims).toMatchObject({ aal: 'aal2' });

      // The admin removes the factor (a lost key): the session it raised is AAL1 again at its next refresh.
      const removed = await call(server.url, 'DELETE', `/admin/users/${claims.sub as string}/factors/${again.factorId}`, { token: admin });
      expect(removed.status).toBe(200);
      const refreshed = await call(server.url, 'POST', '/token?grant_type=refresh_token', { body: { refresh_token: again.refresh } });
      expect(claimsOf(refreshed.body.access_token)).toMatchObject({ aal: 'aal1' });
    } finally {
      await close(t);
    }
  });

  it('refuses an assertion made on another origin, a replayed one, and one whose counter went back', async () => {
    const t = await tab(pages.origin, 'usb');
    try {
      const { email } = await signUpInPage(t);
      await t.page.evaluate(async () => (window as any).auth.mfa.webauthn.register({ friendlyName: 'key' }));
      const factorId: string = await t.page.evaluate(async () => (await (window as any).auth.mfa.listFactors()).data.webauthn[0].id);

      // Replay: the same signed answer, verified twice.
      const replay = await t.page.evaluate(async (id: string, address: string) => {
        const w = window as any;
        await w.auth.signInWithPassword({ email: address, password: 'password-123' });
        const { data: answer } = await w.auth.mfa.webauthn.challenge({ factorId: id, webauthn: { rpId: 'localhost', rpOrigins: [location.origin] } });
        const verify = () => w.auth.mfa.verify({
          factorId: id, challengeId: answer.challengeId,
          webauthn: { type: answer.webauthn.type, rpId: 'localhost', rpOrigins: [location.origin], credential_response: answer.webauthn.credential_response },
        });
        const first = await verify();
        const second = await verify();
        // And the same answer against a fresh challenge (its challenge bytes are another's).
        const { data: fresh } = await w.auth.mfa.challenge({ factorId: id, webauthn: { rpId: 'localhost', rpOrigins: [location.origin] } });
        const third = await w.auth.mfa.verify({
          factorId: id, challengeId: fresh.id,
          webauthn: { type: 'request', rpId: 'localhost', rpOrigins: [location.origin], credential_response: answer.webauthn.credential_response },
        });
        return { first: first.error?.message, second: second.error?.code, third: third.error?.code };
      }, factorId, email);
      expect(replay.first).toBeUndefined();
      expect(replay.second).toBe('mfa_ip_address_mismatch'); // GoTrue's answer for a challenge already verified
      expect(replay.third).toBe('mfa_verification_failed');

      // Counter regression: the authenticator's count set back below what the server saw.
      const { credentials } = await t.cdp.send('WebAuthn.getCredentials', { authenticatorId: t.authenticatorId });
      const credential = credentials[0]!;
      await t.cdp.send('WebAuthn.removeCredential', { authenticatorId: t.authenticatorId, credentialId: credential.credentialId });
      await t.cdp.send('WebAuthn.addCredential', { authenticatorId: t.authenticatorId, credential: { ...credential, signCount: 0 } });
      const cloned = await t.page.evaluate(async (id: string) => {
        const { error } = await (window as any).auth.mfa.webauthn.authenticate({ factorId: id });
        return error?.code;
      }, factorId);
      expect(cloned).toBe('mfa_verification_failed');
      // The factor's refusals name no reason either (the counter stays in the server log).
      const clonedMessage = await t.page.evaluate(async (id: string) => (await (window as any).auth.mfa.webauthn.authenticate({ factorId: id })).error?.message, factorId);
      expect(clonedMessage).toBe('WebAuthn verification failed');
    } finally {
      await close(t);
    }

    // Another origin (a valid place for rpId localhost in the browser, but not in WEBAUTHN_RP_ORIGINS), claiming
    // the allowed origin to the server: the origin the browser signed is what counts.
    const other = await tab(elsewhere.origin, 'usb');
    try {
      await signUpInPage(other);
      const foreign = await other.page.evaluate(async (allowed: string) => {
        const w = window as any;
        const enrolled = await w.auth.mfa.webauthn.enroll({ friendlyName: 'phish' });
        const { data: answer, error } = await w.auth.mfa.webauthn.challenge({ factorId: enrolled.data.id, webauthn: { rpId: 'localhost', rpOrigins: [allowed] } });
        if (error) return { challengeError: error.code };
        const verified = await w.auth.mfa.verify({
          factorId: enrolled.data.id, challengeId: answer.challengeId,
          webauthn: { type: answer.webauthn.type, rpId: 'localhost', rpOrigins: [allowed], credential_response: answer.webauthn.credential_response },
        });
        const honest = await w.auth.mfa.webauthn.challenge({ factorId: enrolled.data.id, webauthn: { rpId: 'localhost', rpOrigins: [location.origin] } });
        return { verifyError: verified.error?.code, honestError: honest.error?.code };
      }, pages.origin);
      expect(foreign).toEqual({ verifyError: 'mfa_verification_failed', honestError: 'validation_failed' });
    } finally {
      await close(other);
    }
  });
});

describeInBrowser('passkeys (auth.registerPasskey / signInWithPasskey)', () => {
  /** A user with no password: created by the admin without one (the server keeps a random hash no one knows), signed in once by a magic link. */
  async function passwordlessSession(): Promise<{ email: string; userId: string; access_token: string; refresh_token: string }> {
    const email = uniqueEmail('passkey');
    const created = await call(server.url, 'POST', '/admin/users', { token: admin, body: { email, email_confirm: true } });
    if (created.status !== 200) throw new Error(`admin create: ${created.status} ${created.text}`);
    const link = await call(server.url, 'POST', '/admin/generate_link', { token: admin, body: { type: 'magiclink', email } });
    const verified = await call(server.url, 'POST', '/verify', { body: { type: 'magiclink', token_hash: link.body.hashed_token } });
    if (verified.status !== 200) throw new Error(`verify: ${verified.status} ${verified.text}`);
    return { email, userId: verified.body.user.id, access_token: verified.body.access_token, refresh_token: verified.body.refresh_token };
  }

  it('a user without a password registers a passkey and signs in with it alone (AAL2: the authenticator verified them)', async () => {
    const t = await tab();
    try {
      const session = await passwordlessSession();
      const flow = await t.page.evaluate(async (s: { access_token: string; refresh_token: string }) => {
        const w = window as any;
        await w.auth.setSession(s);
        const registered = await w.auth.registerPasskey();
        const listed = await w.auth.passkey.list();
        const renamed = await w.auth.passkey.update({ passkeyId: registered.data?.id, friendlyName: 'work laptop' });
        await w.auth.signOut({ scope: 'local' });
        const signedIn = await w.auth.signInWithPasskey();
        return {
          registerError: registered.error?.message, passkeyId: registered.data?.id, listed: listed.data, renamed: renamed.data,
          signInError: signedIn.error?.message, token: signedIn.data?.session?.access_token, userId: signedIn.data?.user?.id,
        };
      }, session);
      expect(flow.registerError).toBeUndefined();
      expect(flow.listed).toEqual([expect.objectContaining({ id: flow.passkeyId, created_at: expect.any(String) })]);
      expect(flow.renamed).toMatchObject({ id: flow.passkeyId, friendly_name: 'work laptop' });
      expect(flow.signInError).toBeUndefined();
      expect(flow.userId).toBe(session.userId);
      expect(claimsOf(flow.token!)).toMatchObject({ sub: session.userId, aal: 'aal2', amr: [expect.objectContaining({ method: 'passkey' })] });
      const listedByAdmin = await call(server.url, 'GET', `/admin/users/${session.userId}/passkeys`, { token: admin });
      expect(listedByAdmin.body).toEqual([expect.objectContaining({ id: flow.passkeyId, friendly_name: 'work laptop', last_used_at: expect.any(String) })]);
    } finally {
      await close(t);
    }
  });

  it('AAL rules: a passkey is a verified factor; removing it ends its sessions and it no longer signs in', async () => {
    const t = await tab();
    try {
      const { email, userId } = await signUpInPage(t);
      const registered = await t.page.evaluate(async () => (await (window as any).auth.registerPasskey()).data?.id as string);
      expect(registered).toBeTruthy();
      // A password session (AAL1) of an account with a passkey cannot change the password, nor add a passkey.
      const password = await call(server.url, 'POST', '/token?grant_type=password', { body: { email, password: 'password-123' } });
      const change = await call(server.url, 'PUT', '/user', { token: password.body.access_token, body: { password: 'new-password-456' } });
      expect([change.status, change.body.error_code]).toEqual([401, 'insufficient_aal']);
      const another = await call(server.url, 'POST', '/passkeys/registration/options', { token: password.body.access_token, body: {} });
      expect([another.status, another.body.error_code]).toEqual([403, 'insufficient_aal']);

      // Signed in with the passkey (AAL2), the user may; the admin then removes the passkey (a lost device).
      const viaPasskey = await t.page.evaluate(async () => {
        const w = window as any;
        await w.auth.signOut({ scope: 'local' });
        const { data } = await w.auth.signInWithPasskey();
        return { access: data.session.access_token as string, refresh: data.session.refresh_token as string };
      });
      expect((await call(server.url, 'PUT', '/user', { token: viaPasskey.access, body: { data: { ok: true } } })).status).toBe(200);
      const removed = await call(server.url, 'DELETE', `/admin/users/${userId}/passkeys/${registered}`, { token: admin });
      expect(removed.status).toBe(204);
      const refresh = await call(server.url, 'POST', '/token?grant_type=refresh_token', { body: { refresh_token: viaPasskey.refresh } });
      expect(refresh.status).toBe(400);
      // The password session may now change the password: no factor left.
      expect((await call(server.url, 'PUT', '/user', { token: password.body.access_token, body: { password: 'new-password-456' } })).status).toBe(200);

      // The authenticator still holds the credential; the server no longer knows it.
      const refused = await t.page.evaluate(async () => (await (window as any).auth.signInWithPasskey()).error?.code);
      expect(refused).toBe('webauthn_verification_failed');
    } finally {
      await close(t);
    }
  });

  it('a user deletes their own passkey from an AAL2 session; the counter check holds for passkeys too', async () => {
    const t = await tab();
    try {
      await signUpInPage(t);
      const result = await t.page.evaluate(async () => {
        const w = window as any;
        const id = (await w.auth.registerPasskey()).data?.id as string;
        await w.auth.signOut({ scope: 'local' });
        const first = await w.auth.signInWithPasskey();
        return { id, first: first.error?.code, aal: first.data?.session ? JSON.parse(atob(first.data.session.access_token.split('.')[1])).aal : undefined };
      });
      expect(result.first).toBeUndefined();
      expect(result.aal).toBe('aal2');

      // Every refusal answers alike (issue 39): a counter that went back, the known credential id signed with
      // another key, and an id the server never saw; none names the counter or says whether the id exists.
      const refusal = async () => t.page.evaluate(async () => {
        const { error } = await (window as any).auth.signInWithPasskey();
        return { code: error?.code, message: error?.message };
      });
      const replaceCredential = async (change: Record<string, unknown>) => {
        const { credentials } = await t.cdp.send('WebAuthn.getCredentials', { authenticatorId: t.authenticatorId });
        await t.cdp.send('WebAuthn.removeCredential', { authenticatorId: t.authenticatorId, credentialId: credentials[0]!.credentialId });
        await t.cdp.send('WebAuthn.addCredential', { authenticatorId: t.authenticatorId, credential: { ...credentials[0]!, ...change } });
      };
      const otherKey = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
      await replaceCredential({ signCount: 0 });
      const cloned = await refusal();
      await replaceCredential({ signCount: 1000, privateKey: otherKey() });
      const forged = await refusal();
      await replaceCredential({ credentialId: randomBytes(16).toString('base64'), privateKey: otherKey() });
      const unknown = await refusal();
      const expected = { code: 'webauthn_verification_failed', message: 'Passkey verification failed' };
      expect({ cloned, forged, unknown }).toEqual({ cloned: expected, forged: expected, unknown: expected });

      const deleted = await t.page.evaluate(async (id: string) => {
        const w = window as any;
        const { error } = await w.auth.passkey.delete({ passkeyId: id });
        return { error: error?.message, session: (await w.auth.getSession()).data.session !== null };
      }, result.id);
      expect(deleted.error).toBeUndefined();
      expect((await call(server.url, 'GET', '/passkeys', { token: await accessToken(t) })).status).toBe(403);
    } finally {
      await close(t);
    }
  });
});

describe('without a browser', () => {
  it('malformed ceremonies are 4xx, never 500', async () => {
    const on = await startTestServer({ env: { PASSKEY_ENABLED: 'true', WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_RP_ORIGINS: 'http://localhost:1' } });
    try {
      const options = await call(on.url, 'POST', '/passkeys/authentication/options', { body: {} });
      expect(options.status).toBe(200);
      expect(options.body).toMatchObject({ challenge_id: expect.any(String), options: { rpId: 'localhost', challenge: expect.any(String) } });
      const cases: Array<[unknown, number, string]> = [
        [{ challenge_id: options.body.challenge_id, credential: { id: 'not-a-credential', response: 'nope' } }, 400, 'webauthn_verification_failed'],
        [{ challenge_id: options.body.challenge_id, credential: {} }, 404, 'webauthn_challenge_not_found'], // used up by the first
        [{ challenge_id: 'x', credential: {} }, 404, 'webauthn_challenge_not_found'],
        [{ credential: {} }, 400, 'validation_failed'],
        [{ challenge_id: options.body.challenge_id, credential: 'a string' }, 400, 'validation_failed'],
      ];
      for (const [body, status, code] of cases) {
        const res = await call(on.url, 'POST', '/passkeys/authentication/verify', { body });
        expect([res.status, res.body.error_code]).toEqual([status, code]);
      }
      const expired = await call(on.url, 'POST', '/passkeys/authentication/options', { body: {} });
      on.clock.advance(301);
      const late = await call(on.url, 'POST', '/passkeys/authentication/verify', { body: { challenge_id: expired.body.challenge_id, credential: { id: 'x' } } });
      expect([late.status, late.body.error_code]).toEqual([422, 'webauthn_challenge_expired']);
    } finally {
      await on.close();
    }
  });

  it('passkeys and the WebAuthn factor are off by default', async () => {
    const off = await startTestServer({ env: { MAILER_AUTOCONFIRM: 'true' } });
    try {
      const options = await call(off.url, 'POST', '/passkeys/authentication/options', { body: {} });
      expect([options.status, options.body.error_code]).toEqual([404, 'passkey_disabled']);
      const signup = await call(off.url, 'POST', '/signup', { body: { email: uniqueEmail('off'), password: 'password-123' } });
      const enroll = await call(off.url, 'POST', '/factors', { token: signup.body.access_token, body: { factor_type: 'webauthn' } });
      expect([enroll.status, enroll.body.error_code]).toEqual([422, 'mfa_webauthn_enroll_not_enabled']);
      expect((await call(off.url, 'GET', '/settings')).body.passkeys_enabled).toBe(false);
    } finally {
      await off.close();
    }
  });
});
