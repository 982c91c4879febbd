// The hosted pages (console/hosted, issue 40) in headless Chromium: a registered OAuth client's whole code flow
// through them (sign-in with a password, a passkey, TOTP step-up; consent approve, deny and remembered), sign-up and
// recovery with the mail caught over SMTP, a cross-site form post refused, the CSP on every page, no request leaving
// the origin, and axe-core on every page. KEYZONE_SCREENSHOTS=1 writes each page to docs/screenshots/.
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Browser, BrowserContext, HTTPRequest, Page } from 'puppeteer-core';
import { chromiumPath, launchBrowser, seriousAccessibilityViolations } from '@keyzone/ui/testing';
import { codeOf, linkOf, startEmailTestServer, type EmailTestServer } from '../helpers/email-server';
import { call } from '../helpers/http';
import { authenticatorCode } from '../helpers/totp';
import { uniqueEmail } from '../helpers/users';
import { pkce, signingKeys } from '../oauth-server/helpers';
import { HOSTED_SESSION_COOKIE } from '../../src/routes/hosted-session';

const browserPath = chromiumPath();
const describeInBrowser = browserPath ? describe : describe.skip;
const SCREENSHOTS = process.env.KEYZONE_SCREENSHOTS === '1' ? path.join(__dirname, '..', '..', '..', '..', 'docs', 'screenshots') : undefined;
const PASSWORD = 'correct-horse-battery';

let server: EmailTestServer;
let browser: Browser;
let app: http.Server;
/** http://localhost:<port>: a secure context for WebAuthn; the pages and the API live under /auth/v1. */
let origin: string;
let base: string;
/** The client application: another origin, its redirect URI answers "callback", /evil.html posts across sites. */
let appOrigin: string;
let redirectUri: string;
let clientId: string;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  if (!browserPath) return;
  app = http.createServer((req, res) => {
    if (req.url?.startsWith('/evil.html')) {
      res.writeHead(200, { 'content-type': 'text/html' }).end(
        `<!doctype html><form method="post" action="${base}/hosted/session/end"><button>go</button></form>`,
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('callback');
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appOrigin = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  redirectUri = `${appOrigin}/callback`;
  const port = await freePort();
  origin = `http://localhost:${port}`;
  base = `${origin}/auth/v1`;
  server = await startEmailTestServer({
    port,
    env: {
      SITE_URL: origin, API_EXTERNAL_URL: base, JWT_ISSUER: base, JWT_KEYS: signingKeys(),
      OAUTH_SERVER_ENABLED: 'true', PASSKEY_ENABLED: 'true', WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_RP_DISPLAY_NAME: 'Keyzone test',
      WEBAUTHN_RP_ORIGINS: origin, SMTP_MAX_FREQUENCY: '0',
    },
  });
  const admin = await server.adminToken();
  const client = await call(base, 'POST', '/admin/oauth/clients', {
    token: admin, body: { client_name: 'Photo Prints', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' },
  });
  if (client.status !== 201) throw new Error(`client: ${client.status} ${client.text}`);
  clientId = client.body.client_id as string;
  browser = await launchBrowser(browserPath);
  if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  app?.closeAllConnections();
  await new Promise<void>((resolve) => (app ? app.close(() => resolve()) : resolve()));
});

async function newUser(): Promise<{ email: string; id: string }> {
  const email = uniqueEmail('hosted');
  const res = await call(base, 'POST', '/admin/users', { token: await server.adminToken(), body: { email, password: PASSWORD, email_confirm: true } });
  if (res.status !== 200) throw new Error(`user: ${res.status} ${res.text}`);
  return { email, id: res.body.id as string };
}

/** A fresh browser profile (its own cookies) with one phone-sized tab. */
async function freshPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport({ width: 390, height: 844 });
  if (process.env.PAGE_LOG) page.on('console', (m) => console.log('page:', m.text()));
  return { context, page };
}

async function checkPage(page: Page, name: string): Promise<void> {
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  if (SCREENSHOTS) await page.screenshot({ path: path.join(SCREENSHOTS, `hosted-${name}.png`), fullPage: true });
}

/** Starts an authorization as the client would and waits for the page the browser lands on. */
async function startFlow(page: Page, scope = 'openid email'): Promise<{ verifier: string; state: string }> {
  const challenge = pkce();
  const state = `state-${Math.random().toString(36).slice(2)}`;
  const query = new URLSearchParams({
    client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope, state,
    code_challenge: challenge.challenge, code_challenge_method: 'S256',
  });
  await page.goto(`${base}/oauth/authorize?${query.toString()}`);
  return { verifier: challenge.verifier, state };
}

async function fill(page: Page, label: string, value: string): Promise<void> {
  const [field] = await page.$$(`xpath/.//label[normalize-space()="${label}"]`);
  if (!field) throw new Error(`no field "${label}"`);
  const id = await field.evaluate((el) => el.getAttribute('for'));
  await page.type(`[id="${id}"]`, value);
}

async function click(page: Page, text: string): Promise<void> {
  const button = await page.waitForSelector(`xpath/.//button[normalize-space()="${text}"]`);
  await button!.click();
}

async function waitForText(page: Page, text: string): Promise<void> {
  await page.waitForFunction((t) => document.body.innerText.includes(t), { timeout: 30_000 }, text);
}

async function waitForCallback(page: Page): Promise<URL> {
  await page.waitForFunction((prefix) => location.href.startsWith(prefix), { timeout: 30_000 }, redirectUri);
  return new URL(page.url());
}

async function exchange(code: string, verifier: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

async function signInWithPassword(page: Page, email: string): Promise<void> {
  await page.waitForSelector('form[aria-label="Sign in with a password"]');
  await fill(page, 'E-mail', email);
  await fill(page, 'Password', PASSWORD);
  await click(page, 'Sign in');
}

describeInBrowser('the hosted pages', () => {
  jest.setTimeout(120_000);

  it('sign in with a password, consent approve, then a remembered consent skips the screen', async () => {
    const user = await newUser();
    const { context, page } = await freshPage();
    try {
      const flow = await startFlow(page);
      await page.waitForFunction(() => location.pathname.endsWith('/hosted/sign-in'));
      expect(new URL(page.url()).searchParams.get('authorization_id')).toBeTruthy();
      await page.waitForSelector('form[aria-label="Sign in with a password"]');
      await checkPage(page, 'sign-in');
      // The dark scheme follows the system's preference, and passes the same scan.
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
      await checkPage(page, 'sign-in-dark');
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);

      // A wrong password is announced in an alert, and the form stays.
      await fill(page, 'E-mail', user.email);
      await fill(page, 'Password', 'wrong-password');
      await click(page, 'Sign in');
      await page.waitForSelector('[role="alert"]');
      expect(await page.$eval('[role="alert"]', (el) => el.textContent)).toMatch(/Invalid login credentials/);
      await page.$eval('input[type="password"]', (el) => { (el as HTMLInputElement).value = ''; });
      await page.evaluate(() => (document.querySelector('input[type="password"]') as HTMLInputElement).select());
      await page.type('input[type="password"]', PASSWORD);
      await click(page, 'Sign in');

      await waitForText(page, 'Allow Photo Prints to use your account?');
      expect(await page.$eval('main', (el) => el.textContent)).toContain('See your e-mail address');
      await checkPage(page, 'consent');
      // No secret in the browser's storage: the session is the HttpOnly cookie.
      const storage = await page.evaluate(() => localStorage.length + sessionStorage.length);
      expect(storage).toBe(0);
      const cookies = await context.cookies();
      const session = cookies.find((c) => c.name === HOSTED_SESSION_COOKIE);
      expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/auth/v1/hosted/session' });
      expect(await page.evaluate(() => document.cookie)).toBe('');

      await click(page, 'Allow');
      const callback = await waitForCallback(page);
      expect(callback.searchParams.get('state')).toBe(flow.state);
      const tokens = await exchange(callback.searchParams.get('code')!, flow.verifier);
      expect(tokens.id_token).toEqual(expect.any(String));

      // The same scopes again: the remembered consent sends the browser straight back with a code.
      const again = await startFlow(page);
      const back = await waitForCallback(page);
      expect(back.searchParams.get('state')).toBe(again.state);
      await exchange(back.searchParams.get('code')!, again.verifier);
    } finally {
      await context.close();
    }
  });

  it('consent deny sends the browser back with access_denied', async () => {
    const user = await newUser();
    const { context, page } = await freshPage();
    try {
      const flow = await startFlow(page, 'openid profile');
      await signInWithPassword(page, user.email);
      await waitForText(page, 'See your name and profile picture');
      await click(page, 'Deny');
      const callback = await waitForCallback(page);
      expect(callback.searchParams.get('error')).toBe('access_denied');
      expect(callback.searchParams.get('state')).toBe(flow.state);
      expect(callback.searchParams.get('code')).toBeNull();
    } finally {
      await context.close();
    }
  });

  it('asks for the TOTP code when the user has a verified factor', async () => {
    const user = await newUser();
    const session = (await call(base, 'POST', '/token?grant_type=password', { body: { email: user.email, password: PASSWORD } })).body;
    const factor = (await call(base, 'POST', '/factors', { token: session.access_token, body: { factor_type: 'totp' } })).body;
    const challenge = (await call(base, 'POST', `/factors/${factor.id}/challenge`, { token: session.access_token, body: {} })).body;
    const verified = await call(base, 'POST', `/factors/${factor.id}/verify`, {
      token: session.access_token, body: { challenge_id: challenge.id, code: authenticatorCode(factor.totp.secret, server.clock.now()) },
    });
    expect(verified.status).toBe(200);

    const { context, page } = await freshPage();
    try {
      const flow = await startFlow(page);
      await signInWithPassword(page, user.email);
      await page.waitForSelector('xpath/.//h1[normalize-space()="Two-step verification"]');
      await checkPage(page, 'totp');
      // The next 30-second step: the enrolment's code may not be used twice.
      server.clock.advance(30);
      await fill(page, 'Authentication code', authenticatorCode(factor.totp.secret, server.clock.now()));
      await click(page, 'Verify');
      await waitForText(page, 'Allow Photo Prints to use your account?');
      await click(page, 'Allow');
      const callback = await waitForCallback(page);
      await exchange(callback.searchParams.get('code')!, flow.verifier);
      // The hosted session behind the cookie is the stepped-up one.
      const cookie = (await context.cookies()).find((c) => c.name === HOSTED_SESSION_COOKIE)!;
      const refreshed = await fetch(`${base}/hosted/session/refresh`, { method: 'POST', headers: { cookie: `${cookie.name}=${cookie.value}` } });
      const { access_token: access } = (await refreshed.json()) as { access_token: string };
      expect(JSON.parse(Buffer.from(access.split('.')[1]!, 'base64url').toString())).toMatchObject({ aal: 'aal2', sub: user.id });
    } finally {
      await context.close();
    }
  });

  it('signs in with a passkey', async () => {
    const user = await newUser();
    const session = (await call(base, 'POST', '/token?grant_type=password', { body: { email: user.email, password: PASSWORD } })).body;
    const { context, page } = await freshPage();
    try {
      await page.goto(`${base}/hosted/sign-in`);
      const cdp = await page.createCDPSession();
      await cdp.send('WebAuthn.enable');
      await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      });
      // The passkey is registered through the public API (the hosted pages only sign in with one).
      const registered = await page.evaluate(async (token: string) => {
        const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
        const started = await (await fetch('/auth/v1/passkeys/registration/options', { method: 'POST', headers, body: '{}' })).json();
        const parse = (PublicKeyCredential as unknown as { parseCreationOptionsFromJSON(o: unknown): PublicKeyCredentialCreationOptions }).parseCreationOptionsFromJSON;
        const credential = (await navigator.credentials.create({ publicKey: parse(started.options) })) as PublicKeyCredential & { toJSON(): unknown };
        const res = await fetch('/auth/v1/passkeys/registration/verify', {
          method: 'POST', headers, body: JSON.stringify({ challenge_id: started.challenge_id, credential: credential.toJSON() }),
        });
        return res.status;
      }, session.access_token as string);
      expect(registered).toBe(200);

      const flow = await startFlow(page);
      await click(page, 'Sign in with a passkey');
      await waitForText(page, 'Allow Photo Prints to use your account?');
      await click(page, 'Allow');
      const callback = await waitForCallback(page);
      await exchange(callback.searchParams.get('code')!, flow.verifier);
    } finally {
      await context.close();
    }
  });

  it('signs up with the confirmation mail, and recovers a password from the mailed link', async () => {
    const email = uniqueEmail('signup');
    const { context, page } = await freshPage();
    try {
      await page.goto(`${base}/hosted/sign-up`);
      await page.waitForSelector('form[aria-label="Create an account"]');
      await checkPage(page, 'sign-up');
      await fill(page, 'E-mail', email);
      await fill(page, 'Password', PASSWORD);
      await click(page, 'Create account');
      await waitForText(page, 'Check your e-mail');
      const confirmation = await server.smtp.nextMessageTo(email);
      await page.goto(linkOf(confirmation));
      await page.waitForSelector('#result dd');
      expect(new URL(page.url()).pathname).toBe('/auth/v1/hosted/');
      expect(await page.$eval('#result', (el) => el.textContent)).toContain(email);
      expect(new URL(page.url()).hash).toBe('');
      await checkPage(page, 'landing');

      await page.goto(`${base}/hosted/recover`);
      await page.waitForSelector('form[aria-label="Reset your password"]');
      await checkPage(page, 'recover');
      await fill(page, 'E-mail', email);
      await click(page, 'Send the link');
      await waitForText(page, 'we sent it a link');
      const recovery = await server.smtp.nextMessageTo(email);
      await page.goto(linkOf(recovery));
      await page.waitForSelector('form[aria-label="Choose a new password"]');
      expect(new URL(page.url()).hash).toBe('');
      await checkPage(page, 'reset-password');
      await fill(page, 'New password', 'a-brand-new-password');
      await click(page, 'Save the password');
      await waitForText(page, `Signed in as ${email}`);
      const signIn = await call(base, 'POST', '/token?grant_type=password', { body: { email, password: 'a-brand-new-password' } });
      expect(signIn.status).toBe(200);

      // Sign-out ends the session and clears the cookie.
      await click(page, 'Sign out');
      await page.waitForSelector('xpath/.//a[normalize-space()="Sign in"]');
      expect((await context.cookies()).find((c) => c.name === HOSTED_SESSION_COOKIE)).toBeUndefined();
    } finally {
      await context.close();
    }
  });

  it('signs in with an e-mailed code and continues to an allowed redirect_to', async () => {
    const user = await newUser();
    const { context, page } = await freshPage();
    try {
      await page.goto(`${base}/hosted/sign-in?redirect_to=${encodeURIComponent('/auth/v1/hosted/?from=sign-in')}`);
      await click(page, 'E-mail code');
      await page.waitForSelector('form[aria-label="Sign in with an e-mailed code"]');
      await fill(page, 'E-mail', user.email);
      await click(page, 'Send me a code');
      await waitForText(page, 'We sent a code');
      await checkPage(page, 'e-mail-code');
      await fill(page, 'Code from the e-mail', codeOf(await server.smtp.nextMessageTo(user.email)));
      await click(page, 'Sign in');
      await page.waitForSelector('xpath/.//p[starts-with(normalize-space(), "Signed in as")]');
      expect(new URL(page.url()).pathname).toBe('/auth/v1/hosted/');
    } finally {
      await context.close();
    }
  });

  it('refuses a cross-site form post to the cookie session', async () => {
    const user = await newUser();
    const { context, page } = await freshPage();
    try {
      await page.goto(`${base}/hosted/sign-in?redirect_to=${encodeURIComponent('https://evil.example/steal')}`);
      await signInWithPassword(page, user.email);
      // redirect_to outside the allow-list is dropped: the browser lands on the server's own page.
      await page.waitForSelector('xpath/.//p[starts-with(normalize-space(), "Signed in as")]');
      expect(new URL(page.url()).origin).toBe(origin);

      await page.goto(`${appOrigin}/evil.html`);
      await Promise.all([page.waitForNavigation(), page.click('button')]);
      expect(await page.evaluate(() => document.body.innerText)).toContain('Cross-site request refused');
      // The session survived: the page on the server's origin still gets access tokens from it.
      await page.goto(`${base}/hosted/`);
      await page.waitForSelector('xpath/.//p[starts-with(normalize-space(), "Signed in as")]');

      const cookie = (await context.cookies()).find((c) => c.name === HOSTED_SESSION_COOKIE)!;
      const refused = await fetch(`${base}/hosted/session/refresh`, {
        method: 'POST', headers: { cookie: `${cookie.name}=${cookie.value}`, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      });
      expect(refused.status).toBe(403);
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await context.close();
    }
  });

  it('serves every page with the strict CSP, nothing leaves the origin, and the consent page allows only its client logo', async () => {
    const pages = ['/', '/hosted/', '/hosted/sign-in', '/hosted/sign-up', '/hosted/recover', '/hosted/reset-password', '/hosted/consent'];
    const { context, page } = await freshPage();
    try {
      const offOrigin: string[] = [];
      await page.setRequestInterception(true);
      const record = (request: HTTPRequest) => {
        if (!request.url().startsWith(origin) && !request.url().startsWith('data:')) offOrigin.push(request.url());
        void request.continue();
      };
      page.on('request', record);
      for (const at of pages) {
        const response = await page.goto(`${base}${at}`);
        expect(response?.status()).toBe(200);
        const csp = response!.headers()['content-security-policy'] ?? '';
        expect(csp).toContain("script-src 'self'");
        expect(csp).toContain("style-src 'self'");
        expect(csp).toContain("frame-ancestors 'none'");
        expect(csp).not.toContain('unsafe-inline');
        await page.waitForSelector('h1');
      }
      expect(offOrigin).toEqual([]);
      page.off('request', record);
      await page.setRequestInterception(false);
      await page.goto(`${base}/hosted/reset-password`);
      await page.waitForSelector('h1');
      await checkPage(page, 'reset-password-without-link');
    } finally {
      await context.close();
    }

    const admin = await server.adminToken();
    const branded = await call(base, 'POST', '/admin/oauth/clients', {
      token: admin, body: { client_name: 'Branded', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', logo_uri: 'https://cdn.example.com/logo.png' },
    });
    const query = new URLSearchParams({ client_id: branded.body.client_id as string, redirect_uri: redirectUri, response_type: 'code', scope: 'openid', code_challenge: pkce().challenge, code_challenge_method: 'S256' });
    const started = await fetch(`${base}/oauth/authorize?${query.toString()}`, { redirect: 'manual' });
    const consentUrl = new URL(started.headers.get('location')!);
    expect(consentUrl.pathname).toBe('/auth/v1/oauth/consent');
    const hop = await fetch(consentUrl, { redirect: 'manual' });
    expect(hop.status).toBe(302);
    const page2 = new URL(hop.headers.get('location')!, consentUrl);
    expect(page2.pathname).toBe('/auth/v1/hosted/consent');
    const consentPage = await fetch(page2);
    expect(consentPage.headers.get('content-security-policy')).toContain("img-src 'self' data: https://cdn.example.com");
    const plain = await fetch(`${base}/hosted/sign-in`);
    expect(plain.headers.get('content-security-policy')).not.toContain('cdn.example.com');
  });
});
