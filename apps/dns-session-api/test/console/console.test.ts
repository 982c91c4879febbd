/// <reference lib="dom" />
// The DNS console (issue 42) in headless Chromium against the real service, database and a real PowerDNS: sign in,
// create a zone, add A, MX and TXT records, a validation error shown at its field, a zone file with one bad line
// fixed and imported after its preview, an edit undone from the history, the publishing state of the PowerDNS
// nameserver, an API token created and revoked, a session that ends while something is typed, sign-out, and a
// cross-site form post refused. axe-core runs on every screen; the CSP header is checked and every request the
// page makes is watched: none may leave the service's origin.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { chromiumPath } from '@keyzone/ui/testing';
import { openConsole, type ConsolePage } from '../helpers/console-browser';
import { eventually, preparePowerDns, type PowerDns } from '../helpers/nameservers';
import { PASSWORD, startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';

jest.setTimeout(240_000);

const browserPath = chromiumPath();
if (!browserPath) console.warn('No Chromium found: the DNS console tests are skipped (CI sets KEYZONE_REQUIRE_BROWSER=1)');
const describeInBrowser = browserPath ? describe : describe.skip;
const NAMESERVER = 'ns1.console.test.';
const ZONE = `console-${Date.now().toString(36)}.example.`;

let server: TestServer;
let alice: CookieClient;
let pdns: PowerDns;
let dir: string;
let ui: ConsolePage;
let browser: Browser;
let page: Page;
const screenshot = (name: string) => ui.screenshot(name);
const audit = (screen: string) => ui.audit(screen);
const waitForText = (text: string) => ui.waitForText(text);
const field = (label: string, scope?: string) => ui.field(label, scope);
const fill = (label: string, value: string, scope?: string) => ui.fill(label, value, scope);
const click = (name: string) => ui.click(name);

async function addRecord(owner: string, type: string, data: Record<string, string>): Promise<void> {
  await fill('Name', owner, 'form:has(button[type=submit])');
  await page.select(await field('Type'), type);
  for (const [name, value] of Object.entries(data)) await fill(name, value);
  await click('Add record');
}

async function recordsOf(zoneId: number): Promise<Array<Record<string, unknown>>> {
  return (await alice.get(`/zone/${zoneId}/records`)).body.zone_record;
}

describeInBrowser('the DNS console', () => {
  let zoneId: number;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'kz-console-'));
    pdns = await preparePowerDns(path.join(dir, 'pdns'));
    await pdns.start();
    server = await startTestServer({
      kind: 'postgres',
      publish: { enabled: true, pollSeconds: 0.2, timeoutSeconds: 5, maxRetrySeconds: 1, powerdns: { [NAMESERVER]: { url: pdns.apiUrl, apiKey: pdns.apiKey, serverId: 'localhost' } } },
    });
    server.deps.publisher?.start();
    await server.seedUser({ group: 'Console', username: 'alice', isAdmin: true });
    alice = await server.login('alice@Console');
    expect((await alice.post('/nameserver', { name: NAMESERVER, address: '192.0.2.53', export: { type: 'powerdns' } })).status).toBe(201);
    ui = await openConsole(server.url, browserPath as string);
    ({ browser, page } = ui);
  }, 180_000);

  afterAll(async () => {
    await ui?.close();
    await server?.deps.publisher?.stop();
    await server?.close();
    await pdns?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the page comes with a strict CSP and signs in with user@group and password', async () => {
    const response = await page.goto(`${server.url}/`, { waitUntil: 'networkidle0' });
    const csp = response!.headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    await page.waitForSelector('::-p-aria(Sign in[role="button"])');
    await audit('sign-in');
    await screenshot('sign-in');
    await fill('User', 'alice@Console');
    await fill('Password', 'not the password');
    await click('Sign in');
    await waitForText('The user, group or password is not right.');
    await fill('Password', PASSWORD);
    await click('Sign in');
    await page.waitForSelector('h1::-p-text(Zones)');
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))).toBe('{}{}');
  });

  test('creates a zone served by the PowerDNS nameserver', async () => {
    await audit('zones');
    await fill('Zone name', ZONE);
    const box = await page.waitForSelector(`::-p-aria(${NAMESERVER}[role="checkbox"])`);
    await box!.click();
    await click('Create zone');
    await page.waitForSelector(`h1::-p-text(${ZONE})`);
    zoneId = Number(/#\/zones\/(\d+)/.exec(page.url())?.[1]);
    expect((await alice.get(`/zone/${zoneId}`)).body.zone).toMatchObject({ zone: ZONE, nameservers: [expect.any(Number)] });
    await audit('zone view');
  });

  test('adds A, MX and TXT records', async () => {
    await addRecord('www', 'A', { address: '192.0.2.10' });
    await waitForText('www A added.');
    await addRecord('@', 'MX', { preference: '10', exchange: `mail.${ZONE}` });
    await waitForText('@ MX added.');
    await addRecord('@', 'TXT', { data: 'v=spf1 -all' });
    await waitForText('@ TXT added.');
    const records = await recordsOf(zoneId);
    expect(records).toEqual(expect.arrayContaining([
      expect.objectContaining({ owner: `www.${ZONE}`, type: 'A', address: '192.0.2.10' }),
      expect.objectContaining({ owner: ZONE, type: 'MX', preference: 10, exchange: `mail.${ZONE}` }),
      expect.objectContaining({ owner: ZONE, type: 'TXT' }),
    ]));
    await page.waitForSelector(`td::-p-text(mail.${ZONE})`);
    await screenshot('zone');
  });

  test("the API's validation error shows at the field it concerns", async () => {
    await addRecord('bad', 'A', { address: '192.0.2.300' });
    const selector = await field('address');
    await page.waitForSelector(`${selector}[aria-invalid="true"]`);
    const described = await page.$eval(selector, (input) => {
      const ids = (input.getAttribute('aria-describedby') ?? '').split(' ');
      return ids.map((id: string) => document.getElementById(id)?.textContent ?? '').join(' ');
    });
    expect(described).toMatch(/IPv4/);
    expect((await recordsOf(zoneId)).some((r) => r.owner === `bad.${ZONE}`)).toBe(false);
    await audit('record error');
    await screenshot('record-error');
  });

  test('the filter narrows the records at once', async () => {
    await fill('Filter records', 'mx');
    await waitForText('1 of 3 records match');
    await fill('Filter records', '');
    await waitForText('3 records');
  });

  test('an edit made inline is undone from the history', async () => {
    await click(`Edit www A 192.0.2.10`);
    await fill('address', '192.0.2.11', 'form[aria-label^="Edit www"]');
    await click('Save');
    await waitForText('Record saved.');
    const www = () => recordsOf(zoneId).then((all) => all.find((r) => r.owner === `www.${ZONE}`));
    expect((await www())?.address).toBe('192.0.2.11');
    await (await page.waitForSelector('::-p-aria(History[role="tab"])'))!.click();
    await page.waitForSelector('ins::-p-text(192.0.2.11)');
    await audit('history');
    await screenshot('history');
    await click('Restore the version before');
    await waitForText('to how it was before change');
    expect((await www())?.address).toBe('192.0.2.10');
    await (await page.waitForSelector('::-p-aria(SOA settings[role="tab"])'))!.click();
    await audit('soa settings');
    await (await page.waitForSelector('::-p-aria(DNSSEC[role="tab"])'))!.click();
    await waitForText('DNSSEC is off');
    await audit('dnssec');
  });

  test('the zone view on a phone-sized screen in the dark scheme', async () => {
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await page.setViewport({ width: 390, height: 844 });
    try {
      await page.goto(`${server.url}/#/zones/${zoneId}`);
      await page.waitForSelector(`h1::-p-text(${ZONE})`);
      const wider = await page.evaluate(() => Array.from(document.querySelectorAll('body *'))
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest('.kz-table-wrap'))
        .map((e) => `${e.tagName}.${e.className}`));
      expect(wider).toEqual([]);
      await audit('zone view, phone, dark');
      await screenshot('zone-phone-dark');
    } finally {
      await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
      await page.setViewport({ width: 1280, height: 900 });
    }
  });

  test('a zone file with one bad line: the line is marked, fixed, previewed and imported', async () => {
    const name = `imported-${Date.now().toString(36)}.example.`;
    const lines = ['$TTL 3600', `@ SOA ${NAMESERVER} hostmaster.${name} 2026112601 86400 7200 1209600 3600`, `@ NS ${NAMESERVER}`, 'www A 192.0.2.10', 'mail A 192.0.2.300', '@ MX 10 mail'];
    await page.goto(`${server.url}/#/import`);
    await page.waitForSelector('h2::-p-text(Import a zone file)');
    await fill('Zone name', name);
    await fill('Zone file', lines.join('\n'));
    await click('Preview');
    const bad = await page.waitForSelector('li.dns-bad');
    expect(await bad!.evaluate((li) => li.textContent)).toMatch(/^5mail A 192\.0\.2\.300.*192\.0\.2\.300/);
    await audit('import errors');
    await screenshot('import-errors');
    lines[4] = 'mail A 192.0.2.30';
    await fill('Zone file', lines.join('\n'));
    await click('Preview');
    await waitForText(`Importing creates the zone ${name}`);
    expect((await alice.get(`/zone?zone=${name}`)).body.zone).toEqual([]);
    await audit('import preview');
    await screenshot('import-preview');
    await click(`Import ${name}`);
    await page.waitForSelector(`h1::-p-text(${name})`);
    expect((await alice.get(`/zone?zone=${name}`)).body.zone).toHaveLength(1);
  });

  test("shows the PowerDNS nameserver's publishing state", async () => {
    await page.goto(`${server.url}/#/nameservers`);
    await page.waitForSelector('h1::-p-text(Nameservers and publishing)');
    await eventually('the console to show the nameserver up to date', async () => {
      await click('Refresh');
      await page.waitForSelector(`[data-testid="status-${NAMESERVER}"]`);
      const text = await page.$eval(`[data-testid="status-${NAMESERVER}"]`, (dl) => (dl as HTMLElement).innerText);
      return /Up to date/.test(text) && !/Last success\s+never/.test(text);
    }, 60_000);
    const zones = await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones`, { headers: { 'x-api-key': pdns.apiKey } }).then((r) => r.json() as Promise<Array<{ name: string }>>);
    expect(zones.map((z) => z.name)).toContain(ZONE);
    await audit('nameservers');
    await screenshot('nameservers');
  });

  test('the group tree shows each group with its zone count, and searches it', async () => {
    const { groupId } = await server.seedSubgroupUser({ parentId: (await alice.get('/session')).body.group.id, group: 'Branch office', username: 'bob' });
    await page.goto(`${server.url}/#/groups`);
    await page.waitForSelector('h1::-p-text(Groups)');
    await page.waitForFunction(() => /Console\s*users\s*2 zones/.test(document.body.innerText) && /Branch office\s*users\s*0 zones/.test(document.body.innerText));
    await audit('groups');
    await screenshot('groups');
    await fill('Search groups', 'branch');
    await page.waitForFunction(() => document.querySelectorAll('nav[aria-label="Group tree"] a:not(.kz-hint)').length === 2);
    await (await page.waitForSelector('a::-p-text(Branch office)'))!.click();
    await waitForText(`The zones of group ${groupId}.`);
    await waitForText('No zones found.');
    // A subgroup created, deleted after a confirmation, and restored.
    await page.goto(`${server.url}/#/groups`);
    await page.waitForSelector('label::-p-text(Group name)');
    await fill('Group name', 'Lab');
    await click('Create group');
    await waitForText('Lab was created.');
    const lab = async () => ((await alice.get(`/group?parent_gid=${(await alice.get('/session')).body.group.id}`)).body.group as Array<Record<string, unknown>>).find((g) => g.name === 'Lab');
    expect(await lab()).toBeDefined();
    await click('Delete group Lab');
    await click('Delete group');
    await waitForText('Lab was deleted.');
    expect(await lab()).toBeUndefined();
    await click('Restore group Lab');
    await waitForText('Lab was restored.');
    expect(await lab()).toBeDefined();
  });

  test('the own profile and password: a mismatch shows at its field, a change is saved', async () => {
    await page.goto(`${server.url}/#/profile`);
    await page.waitForSelector('h1::-p-text(Your profile: alice)');
    await fill('First name', 'Alicia');
    await click('Save profile');
    await waitForText('Your profile was saved.');
    const me = (await alice.get('/session')).body.user;
    expect((await alice.get(`/user/${me.id}`)).body.user.first_name).toBe('Alicia');
    await fill('New password', 'An0ther#Decent-Passw0rd');
    await fill('New password again', 'something else');
    await click('Change password');
    await page.waitForSelector(`${await field('New password again')}[aria-invalid="true"]`);
    await audit('profile');
    await screenshot('profile');
  });

  test('users of a group: created, a field error shown, edited, deleted and restored', async () => {
    const gid = (await alice.get('/session')).body.group.id;
    await page.goto(`${server.url}/#/users`);
    await page.waitForSelector(`h1::-p-text(Users of group ${gid})`);
    await fill('Username', 'carol', 'form:has(button[type=submit])');
    await fill('E-mail', 'not-an-address', 'form:has(button[type=submit])');
    await fill('First name', 'Carol', 'form:has(button[type=submit])');
    await fill('Last name', 'Jones', 'form:has(button[type=submit])');
    await fill('Password', 'Carol#Decent-Passw0rd', 'form:has(button[type=submit])');
    await click('Create user');
    await page.waitForSelector(`${await field('E-mail', 'form:has(button[type=submit])')}[aria-invalid="true"]`);
    await audit('users, field error');
    await fill('E-mail', 'carol@example.com', 'form:has(button[type=submit])');
    await click('Create user');
    await waitForText('carol was created.');
    const carol = () => alice.get(`/group/${gid}/users`).then((r) => (r.body.user as Array<Record<string, unknown>>).find((u) => u.username === 'carol'));
    expect(await carol()).toMatchObject({ email: 'carol@example.com', first_name: 'Carol', is_admin: false });
    await click('Edit carol');
    await fill('Last name', 'Smith', 'form:has(button[type=submit])');
    await click('Save user');
    await waitForText('carol was saved.');
    expect((await carol())?.last_name).toBe('Smith');
    await audit('users');
    await screenshot('users');
    await click('Delete carol');
    await click('Delete user');
    await waitForText('carol was deleted.');
    expect(await carol()).toBeUndefined();
    await (await page.waitForSelector('::-p-aria(Deleted users[role="checkbox"])'))!.click();
    await click('Restore carol');
    await waitForText('carol was restored.');
    expect(await carol()).toBeDefined();
  });

  test('creates an API token shown once, which works until it is revoked', async () => {
    await page.goto(`${server.url}/#/tokens`);
    await page.waitForSelector('h1::-p-text(API tokens)');
    await fill('Name', 'lego on web-1');
    await fill('Record types', 'TXT');
    await click('Create token');
    const token = await (await page.waitForSelector('[data-testid="new-token"]'))!.evaluate((p) => p.textContent ?? '');
    const apiCall = () => fetch(`${server.url}/api/v1/servers/localhost/zones`, { headers: { 'x-api-key': token } }).then((r) => r.status);
    expect(await apiCall()).toBe(200);
    await audit('tokens');
    await screenshot('tokens');
    await click('Revoke lego on web-1');
    await click('Revoke token');
    await waitForText('lego on web-1 was revoked.');
    expect(await apiCall()).toBe(401);
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }))).toBe('{}{}');
  });

  test('a session that ends brings the sign-in back over the screen, and what was typed is still there', async () => {
    await page.goto(`${server.url}/#/zones`);
    await page.waitForSelector('h1::-p-text(Zones)');
    const kept = `kept-${Date.now().toString(36)}.example.`;
    await fill('Zone name', kept);
    const cookie = (await page.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    expect((await fetch(`${server.url}/session`, { method: 'DELETE', headers: { cookie } })).status).toBe(200);
    await click('Create zone');
    await page.waitForSelector('dialog[open] ::-p-text(Sign in again)');
    await audit('session ended');
    await fill('User', 'alice@Console', 'dialog[open]');
    await fill('Password', PASSWORD, 'dialog[open]');
    await click('Sign in');
    await page.waitForFunction(() => !document.querySelector('dialog[open]'));
    expect(await page.$eval(await field('Zone name'), (input) => (input as HTMLInputElement).value)).toBe(kept);
    await click('Create zone');
    await page.waitForSelector(`h1::-p-text(${kept})`);
  });

  test('signs out: the sign-in is back and the old session cookie no longer works', async () => {
    const cookie = (await page.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    await click('Sign out');
    await page.waitForSelector('::-p-aria(Sign in[role="button"])');
    expect((await fetch(`${server.url}/zone`, { headers: { cookie } })).status).toBe(401);
  });

  test('a form on another site posting to the API is refused', async () => {
    await page.goto(`${server.url}/`);
    await page.waitForSelector('::-p-aria(Sign in[role="button"])');
    await fill('User', 'alice@Console');
    await fill('Password', PASSWORD);
    await click('Sign in');
    await page.waitForSelector('h1::-p-text(Zones)');
    const target = `${server.url}/zone`;
    const evil: Server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(`<form method="post" action="${target}" enctype="text/plain"><input name='{"zone":"evil.example.","x":"' value='"}'></form><script>document.forms[0].submit()</script>`);
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    try {
      // localhost and 127.0.0.1 are different sites to the browser.
      const evilUrl = `http://localhost:${(evil.address() as AddressInfo).port}/`;
      // Its own tab (same browser, same cookies): the console's tab keeps refusing requests to other origins.
      const other = await browser.newPage();
      await other.goto(evilUrl);
      await other.waitForFunction((t) => location.href === t && document.body?.innerText.includes('statusCode'), { timeout: 30_000 }, target);
      const body = await other.evaluate(() => document.body.innerText);
      await other.close();
      expect(JSON.parse(body)).toEqual({ statusCode: 403, error: 'Forbidden', message: 'A write from a page of another origin is refused (cross-site request)' });
      expect((await alice.get('/zone?zone=evil.example.')).body.zone).toEqual([]);
    } finally {
      evil.closeAllConnections();
      await new Promise<void>((resolve) => evil.close(() => resolve()));
    }
  });

  test('with auth.yml oidc, the sign-in offers the provider; a failed provider sign-in says why', async () => {
    const withOidc = await startTestServer({
      kind: 'pglite',
      auth: { oidc: { issuer: 'http://127.0.0.1:9/unreachable', clientId: 'dns', clientSecret: 'secret', scopes: ['openid'], redirectUri: 'http://127.0.0.1:9/session/oidc/callback', label: 'Sign in with Keyzone', linkByVerifiedEmail: false, discoveryRefreshSeconds: 3600 } },
    });
    // A browser profile of its own: no session cookie of the other tests (cookies ignore the port).
    const context = await browser.createBrowserContext();
    try {
      const other = await context.newPage();
      await other.goto(`${withOidc.url}/?oidc_error=not_linked#/zones`);
      const button = await other.waitForSelector('a::-p-text(Sign in with Keyzone)');
      expect(await button!.evaluate((a) => (a as HTMLAnchorElement).getAttribute('href'))).toBe(`session/oidc?redirect_to=${encodeURIComponent('/#/zones')}`);
      await other.waitForFunction(() => document.body.innerText.includes('no DNS user is linked to that account'));
      expect(await other.$('::-p-aria(Sign in[role="button"])')).not.toBeNull();
      // Without oidc in auth.yml (the server of the other tests), the sign-in has no such button.
      const plain = await context.newPage();
      await plain.goto(`${server.url}/`, { waitUntil: 'networkidle0' });
      await plain.waitForSelector('::-p-aria(Sign in[role="button"])');
      await plain.waitForFunction(() => document.querySelector('h1')?.textContent === 'Sign in');
      expect(await plain.$('a::-p-text(Sign in with)')).toBeNull();
    } finally {
      await context.close();
      await withOidc.close();
    }
  });

  test('no screen had a serious or critical accessibility violation, and no request left the origin', () => {
    expect(ui.violations).toEqual([]);
    expect(ui.foreignRequests).toEqual([]);
  });
});
