// The admin console (issue 43) in headless Chromium against the real server and database: an admin with TOTP signs
// in (asked for the second factor), finds one user among 10,000, bans and unbans them, edits their metadata (a
// JSON error shown first), removes their factor, adds a SAML provider from pasted metadata and a custom OIDC
// provider (an HTTPS test issuer); a user without an admin role is refused; metadata holding markup stays text;
// axe-core finds no serious or critical violation on any screen. Every action is an admin API call with the
// admin's own token, so the audit log names the admin.
import { sql } from 'kysely';
import type { Page } from 'puppeteer-core';
import { chromiumPath } from '@keyzone/ui/testing';
import { call } from '../helpers/http';
import {
  clickButton, expectAccessible, fieldId, fill, screenshot, startAdminConsoleStand, startConsoleIdentityProviders, type AdminConsoleStand,
  type ConsoleAdmin, type ConsoleIdentityProviders,
} from '../helpers/admin-console';
import type { OidcProvider } from '../helpers/oidc-provider';
import type { SamlIdp } from '../helpers/saml-idp';
import type { EmailTestServer } from '../helpers/email-server';
import { startTestServer, TEST_JWT_SECRET, type TestServer } from '../helpers/server';
import { signingKeys } from '../oauth-server/helpers';

jest.setTimeout(240_000);

const browserPath = chromiumPath();
const describeInBrowser = browserPath ? describe : describe.skip;
const INJECTION = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

let stand: AdminConsoleStand;
let server: EmailTestServer;
let off: TestServer;
let providers: ConsoleIdentityProviders;
let idp: OidcProvider;
let saml: SamlIdp;
let admin: ConsoleAdmin;
const target = { email: 'needle-4242@console.test', id: '' };

const totpCode = () => stand.totpCode();
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const serviceCall = (method: string, url: string, body?: unknown): Promise<any> => stand.serviceCall(method, url, body);
const freshPage = () => stand.freshPage();
const signIn = (page: Page, email: string, password: string) => stand.signIn(page, email, password);

beforeAll(async () => {
  if (!browserPath) return;
  providers = await startConsoleIdentityProviders();
  ({ idp, saml } = providers);
  [stand, off] = await Promise.all([
    startAdminConsoleStand({
      browserPath,
      env: { ...providers.env, OAUTH_SERVER_ENABLED: 'true', JWT_KEYS: signingKeys() },
      configure: providers.configure,
    }),
    startTestServer({ env: { CONSOLE_ENABLED: 'false' } }),
  ]);
  ({ server, admin } = stand);

  // 10,000 users in one statement, spread over a year of sign-ups, then the one this test works with.
  await sql`
    INSERT INTO auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, created_at, updated_at, raw_app_meta_data, raw_user_meta_data, is_anonymous)
    SELECT '00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated', 'seeded-' || n || '@console.test', '',
           now(), now() - make_interval(mins => n * 50), now(), '{"provider":"email","providers":["email"]}', '{}', false
    FROM generate_series(1, 10000) AS n`.execute(server.deps.db);

  const user = await serviceCall('POST', '/admin/users', { email: target.email, password: 'target-password-1', email_confirm: true, user_metadata: { full_name: INJECTION, plan: 'free' } });
  target.id = user.id;
  const targetSession = (await call(server.url, 'POST', '/token?grant_type=password', { body: { email: target.email, password: 'target-password-1' } })).body;
  expect((await call(server.url, 'POST', '/factors', { token: targetSession.access_token, body: { factor_type: 'totp', friendly_name: 'Old phone' } })).status).toBe(200);
}, 240_000);

afterAll(async () => {
  await Promise.all([stand?.close(), off?.close(), providers?.close()]);
});

describeInBrowser('the admin console', () => {
  it('signs an admin in with their second factor, finds, bans, unbans and edits a user, removes their factor', async () => {
    const page = await freshPage();
    try {
      await signIn(page, admin.email, admin.password);
      await page.waitForSelector('::-p-text(The admin console needs your second factor)');
      await expectAccessible(page, 'second factor');
      await fill(page, await fieldId(page, 'Authentication code'), await totpCode());
      await clickButton(page, 'Verify');
      await page.waitForSelector('::-p-aria(Users[role="heading"])');
      await page.waitForSelector('table tbody tr a');
      // Nothing in the page's storage; a reload stays signed in through the HttpOnly cookie session.
      expect(await page.evaluate(() => localStorage.length + sessionStorage.length)).toBe(0);
      expect(await page.evaluate(() => document.cookie)).toBe('');
      await page.reload();
      await page.waitForSelector('table tbody tr a');
      // Keyset pages: Next follows the cursor, Previous comes back to the same rows.
      const firstRows = await page.$$eval('table tbody tr a', (links) => links.map((a) => a.textContent));
      await clickButton(page, 'Next');
      await page.waitForSelector('caption::-p-text(page 2)');
      await page.waitForFunction((first) => document.querySelector('table tbody tr a')?.textContent !== first, {}, firstRows[0]);
      const secondRows = await page.$$eval('table tbody tr a', (links) => links.map((a) => a.textContent));
      expect(secondRows).toHaveLength(25);
      expect(secondRows.filter((r) => firstRows.includes(r))).toEqual([]);
      await clickButton(page, 'Previous');
      await page.waitForFunction((first) => document.querySelector('table tbody tr a')?.textContent === first, {}, firstRows[0]);
      await screenshot(page, 'users');
      await expectAccessible(page, 'users');

      await fill(page, await fieldId(page, 'E-mail, name, phone or user id'), 'needle-4242');
      await clickButton(page, 'Search');
      // The newest users' first page may list the user too: wait for the search's own answer, one row.
      await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 1);
      const link = await page.waitForSelector(`a::-p-text(${target.email})`);
      await link!.click();
      await page.waitForSelector(`h1::-p-text(${target.email})`);
      // The markup in the user's metadata is shown as text and never runs.
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.evaluate(() => document.body.textContent)).toContain('onerror=');
      await screenshot(page, 'user');
      await expectAccessible(page, 'user');

      // Ban for a day, then unban.
      await clickButton(page, 'Ban');
      await page.waitForSelector('::-p-text(The user was banned.)');
      const banned = await serviceCall('GET', `/admin/users/${target.id}`);
      expect(Date.parse(banned.banned_until)).toBeGreaterThan(server.clock.now().getTime());
      await clickButton(page, 'Unban');
      await page.waitForSelector('::-p-text(The user was unbanned.)');
      expect((await serviceCall('GET', `/admin/users/${target.id}`)).banned_until ?? null).toBeNull();
      // The audit log names the admin, not a service key.
      const audit = await serviceCall('GET', '/admin/audit?per_page=20');
      const updates = (audit as Array<{ payload: Record<string, unknown> }>).filter((e) => e.payload.action === 'user_modified' && (e.payload.traits as { user_id?: string }).user_id === target.id);
      expect(updates.length).toBeGreaterThanOrEqual(2);
      for (const entry of updates) expect(entry.payload.actor_id).toBe(admin.id);

      // Metadata: a JSON error at the field first, then a valid object replaces the old one.
      const metadataField = await fieldId(page, 'user_metadata');
      await fill(page, metadataField, '{"plan": "pro",');
      await page.waitForSelector('::-p-text(Not valid JSON)');
      expect(await page.$eval(metadataField, (el) => el.getAttribute('aria-invalid'))).toBe('true');
      await screenshot(page, 'metadata-error');
      await expectAccessible(page, 'metadata error');
      await fill(page, metadataField, JSON.stringify({ plan: 'pro', note: INJECTION }));
      await clickButton(page, 'Save metadata');
      await page.waitForSelector('::-p-text(The metadata was saved.)');
      expect((await serviceCall('GET', `/admin/users/${target.id}`)).user_metadata).toEqual({ plan: 'pro', note: INJECTION });

      // Remove the factor, through the confirm dialog.
      await clickButton(page, 'Remove Old phone');
      await page.waitForSelector('dialog[open]');
      // Escape cancels; nothing is removed.
      await page.keyboard.press('Escape');
      await page.waitForFunction(() => !document.querySelector('dialog[open]'));
      expect(await serviceCall('GET', `/admin/users/${target.id}/factors`)).toHaveLength(1);
      await clickButton(page, 'Remove Old phone');
      await page.waitForSelector('dialog[open]');
      await expectAccessible(page, 'confirm dialog');
      await clickButton(page, 'Remove factor');
      await page.waitForSelector('::-p-text(No factor.)');
      expect(await serviceCall('GET', `/admin/users/${target.id}/factors`)).toEqual([]);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();

      // Sign out everywhere, and the user's trail shows it under the admin.
      await clickButton(page, 'Sign out everywhere');
      await page.waitForSelector('::-p-text(The user was signed out everywhere.)');
      await page.waitForSelector('td::-p-text(logout)');
      expect(await page.$$eval('table tbody tr', (rows) => rows.map((r) => r.textContent ?? '').filter((t) => t.includes('logout')))).toEqual([
        expect.stringContaining(admin.email),
      ]);
    } finally {
      await page.close();
    }
  });

  it('adds a SAML provider from pasted metadata and a custom OpenID Connect provider', async () => {
    const page = await freshPage();
    try {
      await stand.signInAsAdmin(page);

      await (await page.waitForSelector('nav a::-p-text(SSO (SAML))'))!.click();
      await page.waitForSelector('::-p-text(No SAML provider yet.)');
      await page.select(await fieldId(page, 'Metadata from'), 'xml');
      await fill(page, await fieldId(page, 'Metadata XML'), saml.metadataXml());
      await fill(page, await fieldId(page, 'Domains'), 'acme.test');
      await fill(page, await fieldId(page, 'Attribute mapping'), '{"keys": {"email": {"name": "mail"}');
      await page.waitForSelector('::-p-text(Not valid JSON)');
      await fill(page, await fieldId(page, 'Attribute mapping'), '{"keys": {"email": {"name": "mail"}}}');
      await clickButton(page, 'Add provider');
      await page.waitForSelector(`td::-p-text(${saml.entityId})`);
      await screenshot(page, 'saml');
      await expectAccessible(page, 'saml');
      const providers = (await serviceCall('GET', '/admin/sso/providers')).items;
      expect(providers).toHaveLength(1);
      expect(providers[0].domains.map((d: { domain: string }) => d.domain)).toEqual(['acme.test']);
      // A test sign-in: the identity provider's address with a signed AuthnRequest, to open in a new tab.
      await clickButton(page, `Test sign-in with ${saml.entityId}`);
      const testLink = await page.waitForSelector(`a::-p-text(Open the sign-in of ${saml.entityId})`);
      const href = await testLink!.evaluate((a) => (a as HTMLAnchorElement).href);
      expect(href.startsWith(saml.url)).toBe(true);
      expect(saml.readRequest(href).acsUrl).toMatch(/\/sso\/saml\/acs$/);

      await (await page.waitForSelector('nav a::-p-text(Custom providers)'))!.click();
      await page.waitForSelector('::-p-text(No custom provider yet.)');
      await fill(page, await fieldId(page, 'Identifier'), 'custom:acme');
      await fill(page, await fieldId(page, 'Display name'), 'Acme SSO');
      await fill(page, await fieldId(page, 'Issuer'), idp.url);
      await fill(page, await fieldId(page, 'Client ID'), 'acme-web');
      await fill(page, await fieldId(page, 'Client secret'), 'acme-secret-1');
      await clickButton(page, 'Add provider');
      await page.waitForSelector('td::-p-text(custom:acme)');
      await screenshot(page, 'custom-providers');
      await expectAccessible(page, 'custom providers');
      expect(await page.evaluate(() => document.body.textContent)).not.toContain('acme-secret-1');
      const custom = (await serviceCall('GET', '/admin/custom-providers')).providers;
      expect(custom.map((p: { identifier: string }) => p.identifier)).toEqual(['custom:acme']);
    } finally {
      await page.close();
    }
  });

  it('shows the audit log with filters, the settings with secrets masked, an OAuth client\'s secret once; phone-sized and dark', async () => {
    const page = await freshPage();
    try {
      await stand.signInAsAdmin(page);

      await (await page.waitForSelector('nav a::-p-text(Audit log)'))!.click();
      await page.waitForSelector('td::-p-text(login)');
      await fill(page, await fieldId(page, 'Actor id'), admin.id);
      await fill(page, await fieldId(page, 'Action'), 'user_modified');
      await clickButton(page, 'Filter');
      await page.waitForFunction(() => {
        const actions = Array.from(document.querySelectorAll('tbody tr td:nth-child(2)')).map((td) => td.textContent);
        return actions.length > 0 && actions.every((a) => a === 'user_modified');
      });
      await screenshot(page, 'audit');
      await expectAccessible(page, 'audit');

      await (await page.waitForSelector('nav a::-p-text(Settings)'))!.click();
      await page.waitForSelector('h2::-p-text(jwt)');
      const text = await page.evaluate(() => document.body.textContent ?? '');
      expect(text).not.toContain(TEST_JWT_SECRET);
      expect(text).not.toContain('BEGIN');
      expect(text).toContain('********');
      await screenshot(page, 'settings');
      await expectAccessible(page, 'settings');
      // Every screen has its own address: a reload shows the same screen.
      await page.reload();
      await page.waitForSelector('h2::-p-text(jwt)');

      await (await page.waitForSelector('nav a::-p-text(OAuth clients)'))!.click();
      await page.waitForSelector('::-p-text(No client yet.)');
      await fill(page, await fieldId(page, 'Name'), 'Photo Prints');
      await fill(page, await fieldId(page, 'Redirect URIs'), 'https://prints.example.com/callback');
      await clickButton(page, 'Register client');
      await page.waitForSelector('::-p-text(It is shown only now)');
      const secret = await page.$eval('.kz-alert .kz-mono', (el) => el.textContent ?? '');
      expect(secret.length).toBeGreaterThan(20);
      await page.waitForSelector('td::-p-text(Photo Prints)');
      await expectAccessible(page, 'oauth clients');
      await screenshot(page, 'oauth-clients');
      // Shown once: the list never carries it, and after a reload it is gone.
      await page.reload();
      await page.waitForSelector('td::-p-text(Photo Prints)');
      expect(await page.evaluate(() => document.body.textContent)).not.toContain(secret);

      // A phone-sized screen in the dark scheme: no sideways scroll, and the same accessibility scan.
      await page.setViewport({ width: 375, height: 720 });
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
      await (await page.waitForSelector('nav a::-p-text(Users)'))!.click();
      await page.waitForSelector('table tbody tr a');
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
      await expectAccessible(page, 'users, phone, dark');
      await screenshot(page, 'users-phone-dark');
    } finally {
      await page.close();
    }
  });

  it('creates a user, generates a link for them, invites another, deletes the first', async () => {
    const page = await freshPage();
    try {
      await stand.signInAsAdmin(page);

      await fill(page, await fieldId(page, 'E-mail'), 'created@console.test');
      await fill(page, await fieldId(page, 'Password'), 'created-password-1');
      await clickButton(page, 'Create user');
      await page.waitForSelector('::-p-text(User created@console.test was created.)');
      await page.select(await fieldId(page, 'How'), 'invite');
      await fill(page, await fieldId(page, 'E-mail'), 'invited@console.test');
      await clickButton(page, 'Send invitation');
      const invitation = server.smtp.nextMessageTo('invited@console.test', 60_000);
      await page.waitForSelector('::-p-text(An invitation was sent to invited@console.test.)');
      expect((await invitation).subject).toMatch(/invite/i);

      await fill(page, await fieldId(page, 'E-mail, name, phone or user id'), 'created@console');
      await clickButton(page, 'Search');
      await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 1);
      await (await page.waitForSelector('a::-p-text(created@console.test)'))!.click();
      await page.waitForSelector('h1::-p-text(created@console.test)');
      await clickButton(page, 'Generate link');
      await page.waitForSelector('::-p-text(A link was generated)');
      expect(await page.$eval('p.kz-mono', (el) => el.textContent ?? '')).toMatch(/^http.*\/verify\?token=/);
      await clickButton(page, 'Delete user');
      await page.waitForSelector('dialog[open]');
      await (await page.waitForSelector('dialog[open] ::-p-aria(Delete user[role="button"])'))!.click();
      await page.waitForSelector('::-p-aria(Users[role="heading"])');
      const left = await serviceCall('GET', '/admin/users?limit=10&filter=created%40console');
      expect(left.users).toEqual([]);

      // An unconfirmed address gets its confirmation mail again.
      const unconfirmed = await serviceCall('POST', '/admin/users', { email: 'unconfirmed@console.test', password: 'unconfirmed-password-1' });
      await page.goto(`${server.url}/admin/console/users/${unconfirmed.id}`);
      await page.waitForSelector('h1::-p-text(unconfirmed@console.test)');
      const confirmation = server.smtp.nextMessageTo('unconfirmed@console.test', 60_000);
      await clickButton(page, 'Resend confirmation');
      await page.waitForSelector('::-p-text(The confirmation was sent again.)');
      expect((await confirmation).subject).toMatch(/confirm/i);
    } finally {
      await page.close();
    }
  });

  it('takes the session of the hosted sign-in page', async () => {
    const page = await freshPage();
    try {
      await page.goto(`${server.url}/hosted/sign-in`);
      await page.waitForSelector('form[aria-label="Sign in with a password"]');
      await fill(page, await fieldId(page, 'E-mail'), admin.email);
      await fill(page, await fieldId(page, 'Password'), admin.password);
      await clickButton(page, 'Sign in');
      await page.waitForSelector('label::-p-text(Authentication code)');
      await fill(page, await fieldId(page, 'Authentication code'), await totpCode());
      await clickButton(page, 'Verify');
      await page.waitForFunction(() => !location.pathname.endsWith('/sign-in'));
      await page.goto(`${server.url}/admin/console/`);
      await page.waitForSelector('::-p-aria(Users[role="heading"])');
      expect(await page.$('::-p-text(Authentication code)')).toBeNull();
    } finally {
      await page.close();
    }
  });

  it('shows an e-mail address made of markup characters as text', async () => {
    // The address rules allow ' & { } = / ` | ~ but not < or ": what remains is shown exactly as typed.
    const email = "o'neil&{x}=`y`|~@console.test";
    const user = await serviceCall('POST', '/admin/users', { email, email_confirm: true, user_metadata: { bio: '</textarea><script>window.__pwned=3</script>' } });
    const page = await freshPage();
    try {
      await stand.signInAsAdmin(page);
      await page.goto(`${server.url}/admin/console/users/${user.id}`);
      await page.waitForSelector('h1');
      await page.waitForFunction((expected) => document.querySelector('h1')?.textContent === expected, {}, email);
      expect(await page.$eval(await fieldId(page, 'user_metadata'), (el) => (el as HTMLTextAreaElement).value)).toContain('</textarea><script>');
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.$$('script:not([src])')).toHaveLength(0);
    } finally {
      await page.close();
    }
  });

  it('refuses a user without an admin role', async () => {
    await serviceCall('POST', '/admin/users', { email: 'plain@console.test', password: 'plain-password-1', email_confirm: true });
    const page = await freshPage();
    try {
      await signIn(page, 'plain@console.test', 'plain-password-1');
      await page.waitForSelector('::-p-text(its role is not an admin role)');
      expect(await page.$('::-p-text(Authentication code)')).toBeNull();
      await screenshot(page, 'refused');
      await expectAccessible(page, 'refused');
    } finally {
      await page.close();
    }
  });

  it('asks an admin at AAL1 for the second factor before any screen (signing in with the keyboard alone)', async () => {
    const page = await freshPage();
    try {
      await page.goto(`${server.url}/admin/console/`);
      await page.waitForSelector('label::-p-text(E-mail)');
      // Tab from the skip link to the e-mail field, type, Tab, type, Enter.
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe('email');
      await page.keyboard.type(admin.email);
      await page.keyboard.press('Tab');
      await page.keyboard.type(admin.password);
      await page.keyboard.press('Enter');
      await page.waitForSelector('::-p-text(The admin console needs your second factor)');
      expect(await page.$('table')).toBeNull();
      await fill(page, await fieldId(page, 'Authentication code'), '000000');
      await clickButton(page, 'Verify');
      await page.waitForSelector('[role="alert"]');
      expect(await page.$('table')).toBeNull();
    } finally {
      await page.close();
    }
  });

  it('is served under a strict CSP, and not at all with AUTH_CONSOLE_ENABLED=false', async () => {
    const page = await fetch(`${server.url}/admin/console/users/x`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect((await fetch(`${off.url}/admin/console/`, { headers: { accept: 'text/html' } })).status).toBe(404);
  });
});
