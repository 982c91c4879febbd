/// <reference lib="dom" />
// The console's nameservers screen and "publish now" (issue 42) in headless Chromium against the real service, a
// real PowerDNS and BIND: a nameserver edited (the API's field error shown at the field, then saved), one deleted
// (and one still used by a zone refused), "Publish now" bringing back a zone removed from PowerDNS behind Keyzone's
// back and showing the queue until it is up to date, and the zone view's "Publish now". axe-core on each screen.
import { chromiumPath } from '@keyzone/ui/testing';
import type { CookieClient } from '../helpers/client';
import { openConsole, type ConsolePage } from '../helpers/console-browser';
import { dig, eventually, type PowerDns } from '../helpers/nameservers';
import { startPublishingStand, type PublishingStand } from '../helpers/publishing-stand';
import { addRecord, expectStatus, type Json } from '../zones/dns-client';

jest.setTimeout(240_000);

const browserPath = chromiumPath();
if (!browserPath) console.warn('No Chromium found: the console nameserver tests are skipped (CI sets KEYZONE_REQUIRE_BROWSER=1)');
const describeInBrowser = browserPath ? describe : describe.skip;

const NS1 = 'ns1.console-ns.test.';
const NS2 = 'ns2.console-ns.test.';
const SPARE = 'spare.console-ns.test.';
const ZONE = `console-ns-${Date.now().toString(36)}.example.`;

describeInBrowser('the console: nameservers and publish now', () => {
  let stand: PublishingStand;
  let pdns: PowerDns;
  let alice: CookieClient;
  let ui: ConsolePage;
  let ns1: Json;
  let spare: Json;
  let zone: Json;

  const powerDnsZones = async () =>
    ((await (await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones`, { headers: { 'x-api-key': pdns.apiKey } })).json()) as Array<{ name: string }>).map((z) => z.name);
  const removeFromPowerDns = async () => {
    const res = await fetch(`${pdns.apiUrl}/api/v1/servers/localhost/zones/${ZONE}`, { method: 'DELETE', headers: { 'x-api-key': pdns.apiKey } });
    expect(res.status).toBe(204);
    expect(await dig(pdns.dnsPort, `www.${ZONE}`, 'A')).toEqual([]);
  };
  const served = () => eventually(`www.${ZONE} on PowerDNS`, async () => JSON.stringify(await dig(pdns.dnsPort, `www.${ZONE}`, 'A')) === '["192.0.2.10"]');
  /** Nothing queued and nothing being published, so what PowerDNS has stays as it is until something is queued. */
  const settled = async () => {
    await eventually('the publish queue to empty', async () =>
      (await stand.server.deps.db.selectFrom('dns.publish_jobs').select('id').limit(1).execute()).length === 0);
    await stand.server.deps.publisher?.idle();
  };
  const statusText = () => ui.page.$eval(`[data-testid="status-${NS1}"]`, (dl) => (dl as HTMLElement).innerText);

  beforeAll(async () => {
    stand = await startPublishingStand('console-ns', NS1);
    pdns = stand.pdns;
    await stand.server.seedUser({ group: 'Console', username: 'alice', isAdmin: true });
    alice = await stand.server.login('alice@Console');
    ns1 = expectStatus(await alice.post('/nameserver', { name: NS1, address: '192.0.2.53', export: { type: 'powerdns' } }), 201).body.nameserver;
    const ns2 = expectStatus(await alice.post('/nameserver', { name: NS2, address: '192.0.2.54', export: { type: 'bind' } }), 201).body.nameserver;
    spare = expectStatus(await alice.post('/nameserver', { name: SPARE, address: '192.0.2.55', export: { type: 'bind' } }), 201).body.nameserver;
    zone = expectStatus(await alice.post('/zone', { zone: ZONE, mailaddr: `hostmaster@${ZONE.slice(0, -1)}`, nameservers: [ns1.id, ns2.id] }), 201).body.zone;
    await addRecord(alice, zone.id, { owner: 'www', type: 'A', ttl: 300, address: '192.0.2.10' });
    await served();
    ui = await openConsole(stand.server.url, browserPath as string);
    await ui.signIn('alice@Console');
  }, 180_000);

  afterAll(async () => {
    await ui?.close();
    await stand?.stop();
  });

  test('edits a nameserver: the API refuses a bad address at its field, then saves the change', async () => {
    await ui.page.goto(`${stand.server.url}/#/nameservers`);
    await ui.page.waitForSelector('h1::-p-text(Nameservers and publishing)');
    await ui.page.waitForSelector(`[data-testid="status-${NS1}"]`);
    await ui.audit('nameservers');
    await ui.click(`Edit ${SPARE}`);
    const form = `form[aria-label="Edit ${SPARE}"]`;
    await ui.page.waitForSelector(form);
    await ui.fill('IPv4 address', '192.0.2.300', form);
    await ui.fill('Description', 'the spare one', form);
    await ui.click('Save');
    const address = await ui.field('IPv4 address', form);
    await ui.page.waitForSelector(`${address}[aria-invalid="true"]`);
    expect(await ui.describedText(address)).toMatch(/IPv4/);
    await ui.waitForText('The nameserver was not saved');
    await ui.audit('nameserver edit error');
    expect(expectStatus(await alice.get(`/nameserver/${spare.id}`), 200).body.nameserver).toMatchObject({ address: '192.0.2.55', description: '' });

    await ui.fill('IPv4 address', '192.0.2.99', form);
    await ui.click('Save');
    await ui.waitForText(`${SPARE} saved.`);
    expect(await ui.page.$(form)).toBeNull();
    await ui.waitForText('192.0.2.99');
    expect(expectStatus(await alice.get(`/nameserver/${spare.id}`), 200).body.nameserver).toMatchObject({ address: '192.0.2.99', description: 'the spare one' });
  });

  test('deletes a nameserver after asking; one still used by a zone is refused with the API\'s reason', async () => {
    await ui.click(`Delete ${NS1}`);
    await ui.page.waitForSelector('dialog[open]');
    await ui.audit('delete dialog');
    await ui.click('Delete nameserver');
    await ui.waitForText('Cannot delete nameserver: 1 active zone(s) still use it.');
    expect(expectStatus(await alice.get(`/nameserver/${ns1.id}`), 200).body.nameserver.deleted).toBe(false);

    await ui.click(`Delete ${SPARE}`);
    await ui.page.waitForSelector('dialog[open]');
    await ui.click('Delete nameserver');
    await ui.waitForText(`${SPARE} deleted.`);
    await ui.page.waitForFunction((name) => !Array.from(document.querySelectorAll('h2')).some((h) => h.textContent === name), {}, SPARE);
    expect((await alice.get(`/nameserver/${spare.id}`)).status).toBe(404);
    expect(expectStatus(await alice.get(`/nameserver/${spare.id}?deleted=true`), 200).body.nameserver.deleted).toBe(true);
  });

  test('"Publish now" brings back a zone PowerDNS lost and shows the queue until it is up to date', async () => {
    await settled();
    await removeFromPowerDns();
    await settled();
    expect(await powerDnsZones()).not.toContain(ZONE); // nothing queued would bring it back

    await ui.click(`Publish now ${NS1}`);
    await ui.waitForText('Publishing 1 zone(s) to this nameserver now.');
    // The answer's status: the job just queued (the screen reads it again only after a pause).
    expect(await statusText()).toMatch(/Queued changes\s+1/);
    await served();
    expect(await powerDnsZones()).toContain(ZONE);
    // The screen reads the status again while jobs remain, so it ends up to date without a refresh.
    await ui.page.waitForFunction((id) => /Up to date/.test((document.querySelector(`[data-testid="status-${id}"]`) as HTMLElement | null)?.innerText ?? ''), { timeout: 60_000 }, NS1);
    expect(await statusText()).toMatch(/Queued changes\s+0/);
    await ui.audit('nameservers after publish now');
  });

  test('the zone view\'s "Publish now" queues the zone for each of its nameservers', async () => {
    await settled();
    await removeFromPowerDns();
    await ui.page.goto(`${stand.server.url}/#/zones/${zone.id}`);
    await ui.page.waitForSelector(`h1::-p-text(${ZONE})`);
    await ui.click('Publish now');
    await ui.waitForText(`Queued for ${NS1}, ${NS2}: the zone goes out now.`);
    await served();
    await ui.audit('zone view after publish now');
  });

  test('no screen has a serious accessibility violation and nothing left the origin', () => {
    expect(ui.violations).toEqual([]);
    expect(ui.foreignRequests).toEqual([]);
  });
});
