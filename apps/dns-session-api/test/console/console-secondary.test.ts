/// <reference lib="dom" />
// Secondary zones in the DNS console (issue 44) in headless Chromium against the real service and a real BIND
// primary: an administrator transfers a zone from BIND on the import screen (signed with one of their stored TSIG
// keys, chosen in the form), keeping it as a secondary; a failed transfer is shown at the nameserver field; the zone
// view shows the secondary panel (state current, BIND's serial) and no editing control; the zone list tags it; after
// "Convert to a primary zone" the controls are back and a record is added. A user who is no administrator is not
// offered the transfer. axe-core on each screen; no request may leave the service's origin.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { CookieClient } from '../helpers/client';
import { browserPath, startConsoleStand, type ConsoleStand } from '../helpers/console-stand';
import { dig, eventually, startBind, type Bind } from '../helpers/nameservers';
import { expectStatus, type Json } from '../zones/dns-client';
import { SecondaryRefresher } from '../../src/services/zones/secondary/refresher';

const run = promisify(execFile);
jest.setTimeout(240_000);

if (!browserPath) console.warn('No Chromium found: the DNS console tests are skipped (CI sets KEYZONE_REQUIRE_BROWSER=1)');
const describeInBrowser = browserPath ? describe : describe.skip;

const ZONE = 'console-second.example';
const KEY = 'console-primary.key';

describeInBrowser('the DNS console: secondary zones', () => {
  let stand: ConsoleStand;
  let refresher: SecondaryRefresher;
  let bind: Bind;
  let dir: string;
  let root: CookieClient;
  let key: Json;

  beforeAll(async () => {
    stand = await startConsoleStand({ kind: 'postgres' });
    const t = stand.server;
    const { userId } = await t.seedUser({ group: 'SecConsole', username: 'root', isAdmin: true });
    await t.seedUser({ group: 'SecConsole', username: 'alice' });
    root = await t.login('root@SecConsole');
    key = expectStatus(await root.post(`/user/${userId}/tsig-keys`, { name: KEY, algorithm: 'hmac-sha256' }), 201).body.tsig_key as Json;
    // The refresher every instance runs: the kept zone is checked by it from then on (its SOA refresh is hours away).
    refresher = new SecondaryRefresher(t.deps);
    t.deps.secondaries = refresher;
    refresher.start();
    dir = mkdtempSync(path.join(os.tmpdir(), 'kz-console-secondary-'));
    bind = await startBind(dir);
    writeFileSync(path.join(dir, 'second.zone'), [
      '$TTL 3600',
      `@ IN SOA ns1.${ZONE}. hostmaster.${ZONE}. 2026112701 7200 3600 86400 300`,
      `@ IN NS ns1.${ZONE}.`,
      'ns1 IN A 192.0.2.53',
      'www 300 IN A 192.0.2.10',
      '',
    ].join('\n'));
    // Transfers only with the stored key: the console's key choice is what makes the transfer work.
    writeFileSync(path.join(bind.zonesDir, bind.includeFile), [
      `key "${KEY}" { algorithm hmac-sha256; secret "${key.secret as string}"; };`,
      `zone "${ZONE}" { type primary; file "${path.join(dir, 'second.zone')}"; allow-transfer { key "${KEY}"; }; notify no; };`,
      '',
    ].join('\n'));
    await run(bind.reloadCommand[0]!, bind.reloadCommand.slice(1));
    await eventually('BIND to load the zone', async () => (await dig(bind.dnsPort, ZONE, 'SOA')).length > 0);
  }, 240_000);

  afterAll(async () => {
    await bind?.stop();
    await refresher?.stop();
    await stand?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const page = () => stand.page;
  const hasButton = async (name: string) => (await page().$(`::-p-aria(${name}[role="button"])`)) !== null;
  async function checkKeepAsSecondary(): Promise<void> {
    await page().evaluate(() => {
      const label = Array.from(document.querySelectorAll('label')).find((l) => l.textContent?.includes('Keep as a secondary'));
      label?.querySelector('input')?.click();
    });
    await page().waitForFunction(() => Array.from(document.querySelectorAll('label')).some((l) => l.textContent?.includes('Keep as a secondary') && l.querySelector('input')?.checked));
  }

  it('is not offered to a user who is no administrator', async () => {
    await stand.signIn('alice@SecConsole');
    await page().goto(`${stand.server.url}/#/import`, { waitUntil: 'networkidle0' });
    await page().waitForSelector('h2::-p-text(Import a zone file)');
    expect(await page().$('h2::-p-text(Transfer from a nameserver)')).toBeNull();
    await stand.audit('import, no transfer');
  });

  it('transfers a zone from BIND with a stored key and keeps it as a secondary', async () => {
    await stand.signIn('root@SecConsole');
    await page().goto(`${stand.server.url}/#/import`, { waitUntil: 'networkidle0' });
    await page().waitForSelector('h2::-p-text(Transfer from a nameserver (AXFR))');
    const keySelect = await stand.field('TSIG key');
    await page().waitForSelector(`${keySelect} option[value="${String(key.id)}"]`);
    await stand.audit('import, transfer form');

    // A zone BIND does not serve: the failure is shown at the nameserver field, and nothing is created.
    await stand.fill('Nameserver address', '127.0.0.1');
    await stand.fill('Port', String(bind.dnsPort));
    await stand.fill('Zone to transfer', 'not-there.example');
    await page().select(keySelect, String(key.id));
    await stand.click('Transfer the zone');
    await stand.waitForText('The transfer was not made');
    expect(await stand.describedText(await stand.field('Nameserver address'))).toMatch(/The transfer of not-there\.example from 127\.0\.0\.1 failed/);
    await stand.audit('import, transfer failed');

    await stand.fill('Zone to transfer', ZONE);
    await checkKeepAsSecondary();
    await stand.click('Transfer the zone');
    await page().waitForFunction(() => /^#\/zones\/\d+$/.test(location.hash), { timeout: 30_000 });
    await stand.waitForText(`Secondary of 127.0.0.1 port ${bind.dnsPort} — current`);
    const zoneId = Number(/\d+$/.exec(await page().evaluate(() => location.hash))![0]);
    const panel = await page().$eval('[data-testid="secondary-panel"]', (el) => (el as HTMLElement).innerText);
    expect(panel).toMatch(/Primary's serial\s+2026112701/);
    expect(panel).toMatch(/Last error\s+none/);
    expect(panel).toMatch(/stored key #/);
    await stand.waitForText('192.0.2.10');
    for (const name of ['Add record', 'Delete selected', 'Change TTL']) expect(await hasButton(name)).toBe(false);
    expect(await page().$('::-p-aria(Edit www A 192.0.2.10[role="button"])')).toBeNull();
    expect(await page().$('input[type="checkbox"]')).toBeNull();
    expect((await root.get(`/zone/${zoneId}/secondary`)).body.secondary).toMatchObject({ state: 'current', primary: { tsig_key_id: key.id } });
    await stand.audit('secondary zone');

    // The primary's serial moves on; the refresher (made due now) transfers it, and the panel's reload says so in
    // the live region.
    writeFileSync(path.join(dir, 'second.zone'), readFileSync(path.join(dir, 'second.zone'), 'utf8').replace('2026112701', '2026112702'));
    await run(bind.reloadCommand[0]!, bind.reloadCommand.slice(1));
    await eventually('BIND to serve the new serial', async () => (await dig(bind.dnsPort, ZONE, 'SOA')).some((l) => l.includes('2026112702')));
    await stand.server.deps.db.updateTable('dns.secondary_zones').set({ next_check_at: new Date(0) }).where('zone_id', '=', zoneId).execute();
    refresher.kick();
    await eventually('the refresher to transfer the new serial', async () => (await root.get(`/zone/${zoneId}/secondary`)).body.secondary?.primary_serial === 2026112702, 60_000);
    await stand.click('Reload the state');
    await page().waitForSelector('[role="status"]::-p-text(The secondary is now current, the primary\'s serial 2026112702.)', { timeout: 30_000 });
    await (await page().waitForSelector('::-p-aria(SOA settings[role="tab"])'))!.click();
    await stand.waitForText('The SOA settings are the primary\'s');
    expect(await hasButton('Save settings')).toBe(false);

    // The zone list tags it.
    await page().goto(`${stand.server.url}/#/zones`, { waitUntil: 'networkidle0' });
    await page().waitForSelector(`a::-p-text(${ZONE}.)`);
    const row = await page().$eval(`tr:has(a[href="#/zones/${zoneId}"])`, (tr) => (tr as HTMLElement).innerText);
    expect(row).toMatch(/secondary/);
    await stand.audit('zones with a secondary');

    // Converted: the panel goes, editing is back and a record is added.
    await page().goto(`${stand.server.url}/#/zones/${zoneId}`, { waitUntil: 'networkidle0' });
    await stand.click('Convert to a primary zone');
    await page().waitForSelector('dialog[open]');
    await stand.audit('convert dialog');
    await stand.click('Convert');
    await page().waitForSelector('::-p-aria(Add record[role="button"])', { visible: true, timeout: 30_000 });
    expect(await page().$('[data-testid="secondary-panel"]')).toBeNull();
    expectStatus(await root.get(`/zone/${zoneId}/secondary`), 404);
    await stand.fill('Name', 'added', 'form:has(button[type=submit])');
    await page().select(await stand.field('Type'), 'A');
    await stand.fill('address', '192.0.2.77');
    await stand.click('Add record');
    await stand.waitForText('added A added.');
    const records = (await root.get(`/zone/${zoneId}/records?limit=100`)).body.zone_record as Json[];
    expect(records.map((r) => `${r.owner as string} ${r.type as string} ${String(r.address ?? '')}`)).toEqual(expect.arrayContaining([
      `added.${ZONE}. A 192.0.2.77`, `www.${ZONE}. A 192.0.2.10`,
    ]));
    await stand.audit('converted zone');
  });

  it('found no serious accessibility violation and sent nothing outside the service', () => {
    expect(stand.violations).toEqual([]);
    expect(stand.foreignRequests).toEqual([]);
  });
});
