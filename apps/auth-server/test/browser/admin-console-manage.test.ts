// The admin console's management screens (issue 43) in headless Chromium against the real server and database: an
// admin removes a user's passkey (after a confirmation; the trail shows it under the admin), edits a SAML provider
// (a bad domain shown at its field first) and deletes it, creates an OAuth 2.0-type custom provider (a refused URL
// shown at its field first), edits it without ever seeing its secret and deletes it, and pages through the audit log
// by its cursor. axe-core finds no serious or critical violation on these screens.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { chromiumPath } from '@keyzone/ui/testing';
import {
  clickButton, expectAccessible, fieldErrorText, fieldId, fill, screenshot, startAdminConsoleStand, startConsoleIdentityProviders,
  type AdminConsoleStand, type ConsoleIdentityProviders,
} from '../helpers/admin-console';
import type { OidcProvider } from '../helpers/oidc-provider';
import type { SamlIdp } from '../helpers/saml-idp';

jest.setTimeout(240_000);

const browserPath = chromiumPath();
const describeInBrowser = browserPath ? describe : describe.skip;

let stand: AdminConsoleStand;
let providers: ConsoleIdentityProviders;
let idp: OidcProvider;
let saml: SamlIdp;

beforeAll(async () => {
  if (!browserPath) return;
  providers = await startConsoleIdentityProviders();
  ({ idp, saml } = providers);
  stand = await startAdminConsoleStand({
    browserPath,
    env: { ...providers.env, PASSKEY_ENABLED: 'true', WEBAUTHN_RP_ID: 'localhost', WEBAUTHN_RP_ORIGINS: 'http://localhost:1' },
    configure: providers.configure,
  });
}, 240_000);

afterAll(async () => {
  await Promise.all([stand?.close(), providers?.close()]);
});

describeInBrowser('managing with the admin console', () => {
  it('removes a user\'s passkey after a confirmation, and the user\'s trail names the admin', async () => {
    const user = await stand.serviceCall('POST', '/admin/users', { email: 'lost-key@console.test', email_confirm: true });
    // A passkey as the registration ceremony stores it (test/browser/webauthn.test.ts registers real ones).
    const passkeyId = randomUUID();
    await sql`INSERT INTO auth.webauthn_credentials (id, user_id, credential_id, public_key, friendly_name)
              VALUES (${passkeyId}::uuid, ${user.id}::uuid, ${`cred-${passkeyId}`}, 'cHVibGlj', 'Lost phone')`.execute(stand.server.deps.db);
    const page = await stand.freshPage();
    try {
      await stand.signInAsAdmin(page);
      await page.goto(`${stand.server.url}/admin/console/users/${user.id}`);
      await page.waitForSelector('h1::-p-text(lost-key@console.test)');
      await clickButton(page, 'Remove passkey Lost phone');
      await page.waitForSelector('dialog[open]::-p-text(Remove this passkey?)');
      // Cancel first: nothing is removed.
      await clickButton(page, 'Cancel');
      await page.waitForFunction(() => !document.querySelector('dialog[open]'));
      expect(await stand.serviceCall('GET', `/admin/users/${user.id}/passkeys`)).toHaveLength(1);
      await clickButton(page, 'Remove passkey Lost phone');
      await page.waitForSelector('dialog[open]');
      await expectAccessible(page, 'remove passkey dialog');
      await clickButton(page, 'Remove passkey');
      await page.waitForSelector('::-p-text(The passkey was removed.)');
      await page.waitForSelector('::-p-text(No passkey.)');
      expect(await stand.serviceCall('GET', `/admin/users/${user.id}/passkeys`)).toEqual([]);
      // The user's trail (read again after the action) shows the removal under the admin.
      await page.waitForSelector('td::-p-text(passkey_deleted)');
      const row = await page.$$eval('table tbody tr', (rows) => rows.map((r) => r.textContent ?? '').find((t) => t.includes('passkey_deleted')));
      expect(row).toContain(stand.admin.email);
      await expectAccessible(page, 'user without passkey');
    } finally {
      await page.close();
    }
  });

  it('edits a SAML provider (its error at the field) and deletes it', async () => {
    const created = await stand.serviceCall('POST', '/admin/sso/providers', { type: 'saml', metadata_xml: saml.metadataXml(), domains: ['acme.test'] });
    const page = await stand.freshPage();
    try {
      await stand.signInAsAdmin(page);
      await (await page.waitForSelector('nav a::-p-text(SSO (SAML))'))!.click();
      await page.waitForSelector(`td::-p-text(${saml.entityId})`);
      await clickButton(page, `Edit ${saml.entityId}`);
      await page.waitForSelector(`h2::-p-text(Edit ${saml.entityId})`);
      const domains = await fieldId(page, 'Domains');
      await page.waitForFunction((sel) => (document.querySelector(sel) as HTMLInputElement | null)?.value === 'acme.test', {}, domains);
      await fill(page, domains, 'acme.test, not a domain!');
      await clickButton(page, 'Save provider');
      await page.waitForFunction((sel) => document.querySelector(sel)?.getAttribute('aria-invalid') === 'true', {}, domains);
      expect(await fieldErrorText(page, 'Domains')).toContain('is not a domain name');
      await expectAccessible(page, 'saml edit error');
      await screenshot(page, 'saml-edit');

      await fill(page, domains, 'acme.test, acme-eu.test');
      await fill(page, await fieldId(page, 'Attribute mapping'), JSON.stringify({ keys: { email: { name: 'mail' } } }));
      await page.select(await fieldId(page, 'NameID format'), 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent');
      await page.select(await fieldId(page, 'Sign-in through this provider'), 'no');
      await clickButton(page, 'Save provider');
      await page.waitForSelector(`::-p-text(The provider ${saml.entityId} was saved.)`);
      await page.waitForSelector('td::-p-text(acme-eu.test)');
      const saved = await stand.serviceCall('GET', `/admin/sso/providers/${created.id}`);
      expect(saved.domains.map((d: { domain: string }) => d.domain).sort()).toEqual(['acme-eu.test', 'acme.test']);
      expect(saved.saml.attribute_mapping).toEqual({ keys: { email: { name: 'mail' } } });
      expect(saved.saml.name_id_format).toBe('urn:oasis:names:tc:SAML:2.0:nameid-format:persistent');
      expect(saved.disabled).toBe(true);

      await clickButton(page, `Delete ${saml.entityId}`);
      await page.waitForSelector('dialog[open]::-p-text(Delete this SAML provider?)');
      await expectAccessible(page, 'saml delete dialog');
      await clickButton(page, 'Delete provider');
      await page.waitForSelector('::-p-text(No SAML provider yet.)');
      expect((await stand.serviceCall('GET', '/admin/sso/providers')).items).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('creates an OAuth 2.0 custom provider (a refused URL at its field first), edits it without its secret, deletes it', async () => {
    const page = await stand.freshPage();
    try {
      await stand.signInAsAdmin(page);
      await (await page.waitForSelector('nav a::-p-text(Custom providers)'))!.click();
      await page.waitForSelector('::-p-text(No custom provider yet.)');
      await page.select(await fieldId(page, 'Type'), 'oauth2');
      await page.waitForSelector('label::-p-text(Authorization URL)');
      expect(await page.$$eval('label', (labels) => labels.map((l) => l.textContent))).not.toContain('Issuer');
      await fill(page, await fieldId(page, 'Identifier'), 'custom:legacy');
      await fill(page, await fieldId(page, 'Display name'), 'Legacy OAuth');
      await fill(page, await fieldId(page, 'Authorization URL'), `${idp.url}/authorize`);
      // Plain http is refused by the server (the outbound guard): the answer shows at the token URL's field.
      await fill(page, await fieldId(page, 'Token URL'), 'http://127.0.0.1:9/token');
      await fill(page, await fieldId(page, 'Userinfo URL'), `${idp.url}/userinfo`);
      await fill(page, await fieldId(page, 'Client ID'), 'legacy-web');
      await fill(page, await fieldId(page, 'Client secret'), 'legacy-secret-1');
      await fill(page, await fieldId(page, 'Scopes'), 'profile email');
      await clickButton(page, 'Add provider');
      const tokenField = await fieldId(page, 'Token URL');
      await page.waitForFunction((sel) => document.querySelector(sel)?.getAttribute('aria-invalid') === 'true', {}, tokenField);
      expect(await fieldErrorText(page, 'Token URL')).toMatch(/^token_url/);
      expect(await fieldErrorText(page, 'Userinfo URL')).toBeUndefined();
      await expectAccessible(page, 'custom provider error');
      await fill(page, tokenField, `${idp.url}/token`);
      await clickButton(page, 'Add provider');
      await page.waitForSelector('::-p-text(The provider custom:legacy was added.)');
      await page.waitForSelector('td::-p-text(custom:legacy)');
      expect(await page.evaluate(() => document.body.textContent)).not.toContain('legacy-secret-1');
      // The secret field emptied once the secret was sent.
      expect(await page.$eval(await fieldId(page, 'Client secret'), (el) => (el as HTMLInputElement).value)).toBe('');
      const created = await stand.serviceCall('GET', '/admin/custom-providers/custom:legacy');
      expect(created).toMatchObject({
        provider_type: 'oauth2', name: 'Legacy OAuth', client_id: 'legacy-web', scopes: ['profile', 'email'],
        authorization_url: `${idp.url}/authorize`, token_url: `${idp.url}/token`, userinfo_url: `${idp.url}/userinfo`,
      });
      expect(JSON.stringify(created)).not.toContain('legacy-secret-1');
      const sealed = async () => (await sql<{ client_secret: string }>`SELECT client_secret FROM auth.custom_oauth_providers WHERE identifier = 'custom:legacy'`
        .execute(stand.server.deps.db)).rows[0]?.client_secret;
      const sealedBefore = await sealed();
      await screenshot(page, 'custom-provider-oauth2');
      await expectAccessible(page, 'custom providers with an OAuth 2.0 one');

      // Edit: the form comes back with the provider's values, an empty secret field, and the type fixed.
      await clickButton(page, 'Edit custom:legacy');
      await page.waitForSelector('h2::-p-text(Edit custom:legacy)');
      const name = await fieldId(page, 'Display name');
      expect(await page.$eval(name, (el) => (el as HTMLInputElement).value)).toBe('Legacy OAuth');
      expect(await page.$eval(await fieldId(page, 'Client secret'), (el) => (el as HTMLInputElement).value)).toBe('');
      expect(await page.$$eval('label', (labels) => labels.map((l) => l.textContent))).not.toContain('Type');
      await fill(page, name, 'Legacy OAuth (renamed)');
      await fill(page, await fieldId(page, 'Userinfo URL'), `${idp.url}/userinfo?v=2`);
      await page.select(await fieldId(page, 'Sign-in with this provider'), 'no');
      await expectAccessible(page, 'custom provider edit');
      await clickButton(page, 'Save provider');
      await page.waitForSelector('::-p-text(The provider custom:legacy was saved.)');
      await page.waitForSelector('td::-p-text("Legacy OAuth (renamed)")');
      const edited = await stand.serviceCall('GET', '/admin/custom-providers/custom:legacy');
      expect(edited).toMatchObject({ name: 'Legacy OAuth (renamed)', userinfo_url: `${idp.url}/userinfo?v=2`, enabled: false, client_id: 'legacy-web' });
      // The secret was not sent again, so the sealed one is unchanged.
      expect(await sealed()).toBe(sealedBefore);

      await clickButton(page, 'Delete custom:legacy');
      await page.waitForSelector('dialog[open]::-p-text(Delete this custom provider?)');
      await clickButton(page, 'Delete provider');
      await page.waitForSelector('::-p-text(No custom provider yet.)');
      expect((await stand.serviceCall('GET', '/admin/custom-providers')).providers).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('pages through the audit log by its cursor: Next and Previous, each entry once', async () => {
    // 60 audited actions of one kind, so the filtered log has three pages of 25.
    for (let i = 0; i < 60; i += 1) await stand.serviceCall('POST', '/admin/users', { email: `paged-${i}@console.test`, email_confirm: true });
    const expected: string[] = [];
    for (let cursor: string | undefined, more = true; more;) {
      const res = await stand.serviceCall('GET', `/admin/audit?limit=100&action=user_signedup${cursor ? `&cursor=${cursor}` : ''}`);
      expected.push(...res.entries.map((e: { payload: { traits: { user_id: string } } }) => e.payload.traits.user_id));
      cursor = res.pagination.next_cursor;
      more = res.pagination.has_more;
    }
    expect(expected.length).toBeGreaterThanOrEqual(60);

    const page = await stand.freshPage();
    try {
      await stand.signInAsAdmin(page);
      await (await page.waitForSelector('nav a::-p-text(Audit log)'))!.click();
      await page.waitForSelector('td::-p-text(login)');
      await fill(page, await fieldId(page, 'Action'), 'user_signedup');
      await clickButton(page, 'Filter');
      const details = () => page.$$eval('tbody tr', (rows) => rows.map((r) => r.textContent ?? ''));
      await page.waitForFunction(() => {
        const actions = Array.from(document.querySelectorAll('tbody tr td:nth-child(2)')).map((td) => td.textContent);
        return actions.length === 25 && actions.every((a) => a === 'user_signedup');
      });
      const seen: string[][] = [await details()];
      for (let pageNo = 2; pageNo <= 3; pageNo += 1) {
        const before = seen[seen.length - 1]![0];
        await clickButton(page, 'Next');
        await page.waitForSelector(`caption::-p-text(page ${pageNo})`);
        await page.waitForFunction((first) => document.querySelector('tbody tr')?.textContent !== first && !document.querySelector('table[aria-busy]'), {}, before);
        seen.push(await details());
      }
      // Each row's details name the user it concerns: the three pages are the API's first 75 entries, in order.
      const rows = seen.flat().map((text) => /"user_id":"([0-9a-f-]{36})"/.exec(text)?.[1]);
      expect(rows).toEqual(expected.slice(0, 75));
      await screenshot(page, 'audit-pages');
      await expectAccessible(page, 'audit page 3');
      await clickButton(page, 'Previous');
      await page.waitForSelector('caption::-p-text(page 2)');
      await page.waitForFunction((first) => document.querySelector('tbody tr')?.textContent === first && !document.querySelector('table[aria-busy]'), {}, seen[1]![0]);
      expect(await details()).toEqual(seen[1]);
    } finally {
      await page.close();
    }
  });
});
