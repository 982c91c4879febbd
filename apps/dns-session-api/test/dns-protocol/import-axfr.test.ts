// import-axfr (issue 44): an administrator pulls a zone from a BIND primary by AXFR signed with a TSIG key; the zone
// is imported as a zone file is (the records then served by Keyzone's API). A transfer BIND refuses (no key, a wrong
// secret) is a 400 and creates nothing; non-administrators cannot make Keyzone connect anywhere.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { CookieClient } from '../helpers/client';
import { dig, eventually, startBind, type Bind } from '../helpers/nameservers';
import { startTestServer, type TestServer } from '../helpers/server';
import { expectStatus, newNameserver, type Json } from '../zones/dns-client';
import { runImportAxfr } from '../../src/cli/import-axfr';

const run = promisify(execFile);
jest.setTimeout(180_000);

const SECRET = Buffer.alloc(32, 9).toString('base64');
const ZONE = 'pulled.example';
let server: TestServer;
let bind: Bind;
let dir: string;
let admin: CookieClient;
let user: CookieClient;

beforeAll(async () => {
  server = await startTestServer();
  await server.seedUser({ group: 'Imp', username: 'root', isAdmin: true });
  await server.seedUser({ group: 'Imp', username: 'plain' });
  admin = await server.login('root@Imp');
  user = await server.login('plain@Imp');
  await newNameserver(admin, { name: 'ns1.pulled.example.' });
  dir = mkdtempSync(path.join(os.tmpdir(), 'kz-import-axfr-'));
  bind = await startBind(dir);
  writeFileSync(path.join(dir, 'pulled.zone'), [
    '$TTL 3600',
    '@ IN SOA ns1.pulled.example. hostmaster.pulled.example. 2026112601 7200 3600 1209600 300',
    '@ IN NS ns1.pulled.example.',
    'ns1 IN A 192.0.2.53',
    'www 300 IN A 192.0.2.10',
    'www 300 IN AAAA 2001:db8::10',
    '@ IN MX 10 mail.pulled.example.',
    'mail IN A 192.0.2.25',
    'txt IN TXT "v=spf1 -all" "second string"',
    '_sip._tcp IN SRV 10 20 5060 mail.pulled.example.',
    'sip IN CNAME www',
    '@ IN CAA 0 issue "letsencrypt.org"',
    '',
  ].join('\n'));
  writeFileSync(path.join(bind.zonesDir, bind.includeFile), [
    `key "pull.key" { algorithm hmac-sha256; secret "${SECRET}"; };`,
    `zone "${ZONE}" { type primary; file "${path.join(dir, 'pulled.zone')}"; allow-transfer { key "pull.key"; }; };`,
    `zone "cli.example" { type primary; file "${path.join(dir, 'pulled.zone')}"; allow-transfer { key "pull.key"; }; };`,
    '',
  ].join('\n'));
  await run(bind.reloadCommand[0]!, bind.reloadCommand.slice(1));
  await eventually('BIND to load the zone', async () => (await dig(bind.dnsPort, ZONE, 'SOA')).length > 0);
}, 180_000);
afterAll(async () => {
  await bind?.stop();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const body = (extra: Record<string, unknown> = {}) => ({ zone: ZONE, server: '127.0.0.1', port: bind.dnsPort, ...extra });

describe('import-axfr', () => {
  it('refuses non-administrators, transfers BIND refuses, and bad keys, creating nothing', async () => {
    expectStatus(await user.post('/zone/import-axfr', body({ key: { name: 'pull.key', algorithm: 'hmac-sha256', secret: SECRET } })), 403);
    const unsigned = expectStatus(await admin.post('/zone/import-axfr', body()), 400);
    expect(unsigned.body.message).toMatch(/REFUSED|NOTAUTH|closed/);
    const wrong = expectStatus(await admin.post('/zone/import-axfr', body({ key: { name: 'pull.key', algorithm: 'hmac-sha256', secret: Buffer.alloc(32, 1).toString('base64') } })), 400);
    expect(wrong.body.message).toMatch(/transfer of pulled\.example from 127\.0\.0\.1 failed/);
    expectStatus(await admin.post('/zone/import-axfr', body({ server: 'ns1.example.net' })), 400);
    expect(((await admin.get(`/zone?zone=${ZONE}.`)).body.zone as Json[]).length).toBe(0);
  });

  it('pulls the zone with TSIG and imports it through the zone file checks', async () => {
    const res = expectStatus(await admin.post('/zone/import-axfr', body({ key: { name: 'pull.key', algorithm: 'hmac-sha256', secret: SECRET } })), 201);
    expect(res.body.zone).toMatchObject({ zone: `${ZONE}.`, serial: 2026112601, mailaddr: 'hostmaster.pulled.example.', refresh: 7200, minimum: 300 });
    const records = (await admin.get(`/zone/${res.body.zone.id}/records?limit=100`)).body.zone_record as Json[];
    const text = records.map((r) => `${r.owner as string} ${r.type as string}`).sort();
    expect(text).toEqual(expect.arrayContaining([
      `www.${ZONE}. A`, `www.${ZONE}. AAAA`, `${ZONE}. MX`, `mail.${ZONE}. A`, `txt.${ZONE}. TXT`, `_sip._tcp.${ZONE}. SRV`, `sip.${ZONE}. CNAME`, `${ZONE}. CAA`,
    ]));
    expect(records.find((r) => r.type === 'TXT')).toMatchObject({ strings: ['v=spf1 -all', 'second string'] });
    expect(records.find((r) => r.type === 'CNAME')).toMatchObject({ cname: `www.${ZONE}.` });
    expectStatus(await admin.post('/zone/import-axfr', body({ key: { name: 'pull.key', algorithm: 'hmac-sha256', secret: SECRET } })), 409);
  });

  it('works from the command line, acting as the administrator named', async () => {
    const saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = server.database.url;
    const log = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await runImportAxfr(['--zone', 'cli.example', '--server', `127.0.0.1:${bind.dnsPort}`, '--as', 'root@Imp', '--key', `hmac-sha256:pull.key:${SECRET}`]);
      expect(log.mock.calls.flat().join('\n')).toMatch(/imported cli\.example\. \(zone \d+, serial 2026112601\) with \d+ records/);
      await expect(runImportAxfr(['--zone', 'cli.example', '--server', '127.0.0.1', '--as', 'nobody@Imp'])).rejects.toThrow(/no user nobody@Imp/);
    } finally {
      log.mockRestore();
      process.env.DATABASE_URL = saved;
    }
    const zones = (await admin.get('/zone?zone=cli.example.')).body.zone as Json[];
    expect(zones).toHaveLength(1);
    const history = (await admin.get(`/zone/${zones[0]!.id}/history`)).body.history as Json[];
    expect(history[0]).toMatchObject({ action: 'create', user: { id: expect.any(Number) } });
  });
});
