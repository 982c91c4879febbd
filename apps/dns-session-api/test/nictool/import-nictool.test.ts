// import-nictool against real MariaDB (issue 14): a NicTool-shaped database with the reference's password
// vectors, duplicate group names, deleted objects, records Keyzone refuses and types it lacks. Users log in
// with their NicTool passwords; a second run changes nothing; a dry run writes nothing; the CLI prints it all.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '@keyzone/db/testing';
import type { DnsConfig } from '@keyzone/config';
import { importNicTool } from '../../src/nictool/import';
import { formatSummary, type ImportSummary } from '../../src/nictool/summary';
import { openNicTool } from '../../src/nictool/source';
import { startTestServer, type TestServer } from '../helpers/server';
import { createNicToolDb, type NicToolDb } from './nictool-db';

let nictool: NicToolDb;
let t: TestServer;

const PBKDF2 = { password: 'YouGuessedIt!', salt: '(ICzAm2.QfCa6.MN', hash: '050cfa70c3582be0d5bfae25138a8486dc2e6790f39bc0c4e111223ba6034432' };
const HMAC = { password: 'OhNoYouDont', username: 'unit-test', digest: '083007777a5241d01abba70c938c60d80be60027' };

beforeAll(async () => {
  nictool = await createNicToolDb();
  const x = (q: string, p?: unknown[]) => nictool.exec(q, p);
  await x(`insert into nt_group (nt_group_id, parent_group_id, name, deleted) values
    (1, 0, 'NicTool', 0), (3, 2, 'acme', 0), (2, 1, 'Customers', 0), (4, 1, 'acme', 0), (5, 1, 'gone', 1), (6, 99, 'orphan', 0)`);
  await x(`insert into nt_user (nt_user_id, nt_group_id, first_name, last_name, username, password, pass_salt, email, is_admin, deleted) values
    (1, 1, 'Root', 'User', 'root', ?, ?, 'root@example.com', 1, 0),
    (2, 3, 'Unit', 'Test', ?, ?, NULL, 'unit@example.com', 0, 0),
    (3, 3, 'Plain', 'Text', 'test', 'test', NULL, 'test@example.com', 0, 0),
    (4, 3, 'Old', 'Timer', 'former', 'x', NULL, 'former@example.com', 0, 1),
    (5, 3, 'Shadow', 'Copy', 'TEST', 'other', NULL, 'shadow@example.com', 0, 0)`, [PBKDF2.hash, PBKDF2.salt, HMAC.username, HMAC.digest]);
  await x(`insert into nt_nameserver (nt_nameserver_id, nt_group_id, name, ttl, description, address, address6, export_type_id, deleted) values
    (1, 1, 'ns1.example.net.', 3600, 'primary', '192.0.2.53', NULL, 1, 0),
    (2, 1, 'ns2.example.net', 86400, '', '198.51.100.53', '2001:db8::53', 2, 0),
    (3, 1, 'ns3.example.net.', 3600, '', '203.0.113.53', NULL, 3, 0),
    (4, 1, 'ns4.example.net.\n$INCLUDE /etc/passwd', 3600, '', '203.0.113.54', NULL, 1, 0)`);
  await x(`insert into nt_zone (nt_zone_id, nt_group_id, zone, mailaddr, description, serial, refresh, retry, expire, minimum, ttl, deleted) values
    (1, 3, 'example.com', 'hostmaster.example.com.', 'main', 2026010101, 16384, 2048, 1048576, 2560, 86400, 0),
    (2, 3, 'old.example', NULL, '', 5, NULL, NULL, NULL, NULL, NULL, 1),
    (3, 3, '../../escaped-by-import', NULL, '', 1, NULL, NULL, NULL, NULL, NULL, 0),
    (4, 3, 'x" { }; key "injected" { secret "a"; }; zone "y', NULL, '', 1, NULL, NULL, NULL, NULL, NULL, 0),
    (5, 3, 'mail.example', 'x\n$INCLUDE /etc/passwd\n@example.com', '', 1, NULL, NULL, NULL, NULL, NULL, 0),
    (6, 3, 'soa.example', 'host master;(x@example.com', '', 1, NULL, NULL, NULL, NULL, NULL, 0)`);
  await x('insert into nt_zone_nameserver (nt_zone_id, nt_nameserver_id) values (1, 1), (1, 2)');
  await x(`insert into nt_zone_record (nt_zone_record_id, nt_zone_id, name, ttl, description, type_id, address, weight, priority, other, deleted) values
    (1, 1, 'www', 3600, 'web', 1, '192.0.2.10', NULL, NULL, NULL, 0),
    (2, 1, '@', 3600, '', 15, 'mail.example.com.', 10, NULL, NULL, 0),
    (3, 1, 'mail', 3600, '', 1, '192.0.2.25', NULL, NULL, NULL, 0),
    (4, 1, 'ftp', 3600, '', 5, 'www', NULL, NULL, NULL, 0),
    (5, 1, '@', 3600, '', 16, 'v=spf1 mx -all', NULL, NULL, NULL, 0),
    (6, 1, '_sip._tcp', 3600, '', 33, 'www.example.com.', 5, 10, '5060', 0),
    (7, 1, '@', 3600, '', 2, 'ns1.example.net.', NULL, NULL, NULL, 0),
    (8, 1, 'bad', 3600, '', 1, '192.0.2.999', NULL, NULL, NULL, 0),
    (9, 1, 'pc', 3600, '', 24, 'SIG data', NULL, NULL, NULL, 0),
    (15, 1, 'box', 3600, '', 13, 'Linux', NULL, NULL, 'x86', 0),
    (10, 1, 'alias', 3600, '', 5, 'www', NULL, NULL, NULL, 0),
    (11, 1, 'alias', 3600, '', 1, '192.0.2.11', NULL, NULL, NULL, 0),
    (12, 1, 'retired', 3600, '', 1, '192.0.2.12', NULL, NULL, NULL, 1),
    (13, 1, '@', 3600, '', 257, 'letsencrypt.org', 0, NULL, 'issue', 0),
    (14, 2, 'x', 60, '', 1, '192.0.2.99', NULL, NULL, NULL, 0),
    (16, 1, 'multi', 3600, '', 1, '192.0.2.31', NULL, NULL, NULL, 0),
    (17, 1, 'multi', 300, '', 1, '192.0.2.32', NULL, NULL, NULL, 0),
    (18, 1, 'multi', 3600, '', 1, '192.0.2.31', NULL, NULL, NULL, 0),
    (20, 1, 'quoted', 3600, '', 16, 'say "hello', NULL, NULL, NULL, 0),
    (19, 1, '@', 3600, '', 48, 'mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGR==', 257, 3, '13', 0),
    (21, 1, 'child', 3600, '', 2, 'ns1.child.example.net.', NULL, NULL, NULL, 0),
    (22, 1, 'child', 3600, '', 43, '${'ab'.repeat(32)}', 2, 13, '12345', 0),
    (23, 1, 'child', 3600, '', 43, '${'cd'.repeat(20)}', 54321, 8, '1', 0),
    (24, 1, 'cert', 3600, 'x509', 37, 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A', 13, 12345, 'PKIX', 0),
    (25, 1, 'cert', 3600, '', 37, 'mQENBFVHm5sBCACeJ0bz', 0, 0, '3', 0),
    (26, 1, 'cert', 3600, '', 37, 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A', 0, 0, 'X509', 0),
    (27, 1, 'vpn', 3600, 'AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ==', 45, '192.0.2.38', 10, 1, '2', 0),
    (28, 1, 'sig', 3600, '', 46, 'A 13 2 3600 20260101000000 20251201000000 12345 example.com. AAAA', NULL, NULL, NULL, 0)`);
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
  await nictool?.destroy();
});

async function run(dryRun: boolean, db = t.deps.db, publish?: DnsConfig['publish']): Promise<ImportSummary> {
  const source = await openNicTool(nictool.url);
  try {
    return await importNicTool({ db, clock: t.clock }, source, { dryRun, publish });
  } finally {
    await source.close();
  }
}

const noteFor = (summary: ImportSummary, kind: string, id: number) => summary.notes.find((n) => n.kind === kind && n.nictoolId === id)?.reason;

describe('import-nictool', () => {
  let first: ImportSummary;

  beforeAll(async () => {
    first = await run(false);
  });

  it('refuses, and lists, the names and fields the API refuses: nothing from the source reaches a zone file or a server configuration unchecked (issue 27)', () => {
    expect(noteFor(first, 'nameserver', 4)).toMatch(/^Invalid nameserver: name \(control_character\).*; not imported$/);
    expect(noteFor(first, 'zone', 3)).toMatch(/^Invalid zone: zone \(empty_label\)/);
    expect(noteFor(first, 'zone', 4)).toMatch(/^Invalid zone: zone \(hostname\)/);
    expect(noteFor(first, 'zone', 5)).toMatch(/^Invalid zone: mailaddr \(control_character\)/);
    expect(noteFor(first, 'zone', 6)).toMatch(/^Invalid zone: mailaddr \(mailbox\)/);
  });

  it('base64 with non-zero padding bits (which BIND refuses) is imported in canonical form, with a note (issue 27)', async () => {
    expect(noteFor(first, 'record', 19)).toBe('public_key had non-zero base64 padding bits (BIND refuses that); imported in canonical form, the same bytes');
    const key = await t.deps.db.selectFrom('dns.zone_records').select('rdata').where('type', '=', 'DNSKEY').executeTakeFirstOrThrow();
    expect((key.rdata as { public_key: string }).public_key).toMatch(/KGQ==$/);
  });

  it('DS with key tag and digest type in NicTool 2\'s columns is imported the right way round, with a note (issue 27)', () => {
    expect(noteFor(first, 'record', 22)).toBeUndefined();
    expect(noteFor(first, 'record', 23)).toBe("key tag and digest type were in each other's columns (NicTool 2's order); imported as key tag 54321, digest type 1, as the digest's length shows");
  });

  it('TXT with an unbalanced quote is imported as NicTool served it, without its quotes, with a note (issue 27)', async () => {
    expect(noteFor(first, 'record', 20)).toBe("an unbalanced quote in the text; imported without its quotes, as NicTool's export served it");
    const txt = await t.deps.db.selectFrom('dns.zone_records').select('rdata').where('owner', '=', 'quoted.example.com.').executeTakeFirstOrThrow();
    expect(txt.rdata).toEqual({ data: '"say hello"' });
  });

  it('an RRset with mixed TTLs takes the lowest, and an exact duplicate is merged, each listed (issue 27)', async () => {
    expect(noteFor(first, 'record', 16)).toBe('TTL 3600 lowered to 300, the lowest of its RRset (one TTL per RRset, RFC 2181 §5.2)');
    expect(noteFor(first, 'record', 18)).toBe('the same record as NicTool record 16; merged into it');
    const rows = await t.deps.db.selectFrom('dns.zone_records').select(['ttl', 'rdata']).where('owner', '=', 'multi.example.com.').orderBy('id').execute();
    expect(rows.map((r) => [r.ttl, (r.rdata as { address: string }).address])).toEqual([[300, '192.0.2.31'], [300, '192.0.2.32']]);
  });

  it('imports the tree, users with their hashes, nameservers, zones and records, and says what it left', async () => {
    expect(first.imported).toEqual({ group: 5, user: 4, nameserver: 3, zone: 2, record: 20 }); // 19 in example.com, 1 in the deleted zone
    // Group names are unique: the second "acme" is renamed; the orphan cannot be placed.
    expect(noteFor(first, 'group', 4)).toMatch(/imported as "acme-nt4", so its users log in as user@acme-nt4/);
    expect(noteFor(first, 'group', 6)).toMatch(/parent group 99 does not exist/);
    expect(noteFor(first, 'user', 5)).toMatch(/another live user of that group has this username/);
    expect(noteFor(first, 'nameserver', 3)).toMatch(/export type "maradns" has no Keyzone counterpart; imported as bind/);
    expect(noteFor(first, 'record', 8)).toMatch(/address/);
    expect(noteFor(first, 'record', 9)).toBe('record type 24 is not supported by Keyzone');
    // CERT: NicTool's mnemonic in `other` (issue 38.4); one that RFC 4398 does not define is listed
    expect(noteFor(first, 'record', 24)).toBeUndefined();
    expect(noteFor(first, 'record', 26)).toMatch(/^cert_type: cert_type must be an integer from 0 to 65535 or one of PKIX, SPKI, PGP/);
    expect(noteFor(first, 'record', 28)).toMatch(/^RRSIG records are made by the DNSSEC signer/);
    expect(noteFor(first, 'record', 10)).toMatch(/cname_exclusive/);
    expect(noteFor(first, 'record', 11)).toMatch(/cname_exclusive/);
    // the apex NS equal to an assigned nameserver is not stored twice, and the report says so (issue 27)
    expect(noteFor(first, 'record', 7)).toBe('the same as an assigned nameserver of the zone, which Keyzone writes on export; not stored twice');

    const tree = await sql<{ name: string; parent: string | null; deleted: boolean }>`
      select g.name, p.name as parent, g.deleted_at is not null as deleted from dns.groups g left join dns.groups p on p.id = g.parent_id
      where g.id in (select local_id from dns.nictool_imports where kind = 'group') order by g.name`.execute(t.deps.db);
    expect(tree.rows).toEqual([
      { name: 'acme', parent: 'Customers', deleted: false },
      { name: 'acme-nt4', parent: 'NicTool', deleted: false },
      { name: 'Customers', parent: 'NicTool', deleted: false },
      { name: 'gone', parent: 'NicTool', deleted: true },
      { name: 'NicTool', parent: null, deleted: false },
    ].sort((a, b) => (a.name < b.name ? -1 : 1)));

    const zone = await t.deps.db.selectFrom('dns.zones').selectAll().where('name', '=', 'example.com.').executeTakeFirstOrThrow();
    expect(zone).toMatchObject({ mailaddr: 'hostmaster.example.com.', serial: '2026010101', refresh: 16384, ttl: 86400, deleted_at: null });
    const records = await t.deps.db.selectFrom('dns.zone_records').select(['owner', 'type', 'rdata', 'description', 'deleted_at'])
      .where('zone_id', '=', zone.id).orderBy('id').execute();
    expect(records.map((r) => [r.owner, r.type, r.rdata, r.deleted_at !== null])).toEqual([
      ['www.example.com.', 'A', { address: '192.0.2.10' }, false],
      ['example.com.', 'MX', { preference: 10, exchange: 'mail.example.com.' }, false],
      ['mail.example.com.', 'A', { address: '192.0.2.25' }, false],
      ['ftp.example.com.', 'CNAME', { cname: 'www.example.com.' }, false],
      ['example.com.', 'TXT', { data: '"v=spf1 mx -all"' }, false],
      ['_sip._tcp.example.com.', 'SRV', { priority: 10, weight: 5, port: 5060, target: 'www.example.com.' }, false],
      ['retired.example.com.', 'A', { address: '192.0.2.12' }, true],
      ['example.com.', 'CAA', { flags: 0, tag: 'issue', value: 'letsencrypt.org' }, false],
      ['box.example.com.', 'HINFO', { cpu: 'x86', os: 'Linux' }, false],
      ['multi.example.com.', 'A', { address: '192.0.2.31' }, false],
      ['multi.example.com.', 'A', { address: '192.0.2.32' }, false],
      ['example.com.', 'DNSKEY', { flags: 257, protocol: 3, algorithm: 13, public_key: 'mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==' }, false],
      ['quoted.example.com.', 'TXT', { data: '"say hello"' }, false],
      ['child.example.com.', 'NS', { dname: 'ns1.child.example.net.' }, false],
      ['child.example.com.', 'DS', { key_tag: 12345, algorithm: 13, digest_type: 2, digest: 'ab'.repeat(32) }, false],
      ['child.example.com.', 'DS', { key_tag: 54321, algorithm: 8, digest_type: 1, digest: 'cd'.repeat(20) }, false],
      ['cert.example.com.', 'CERT', { cert_type: 1, key_tag: 12345, algorithm: 13, certificate: 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A' }, false],
      ['cert.example.com.', 'CERT', { cert_type: 3, key_tag: 0, algorithm: 0, certificate: 'mQENBFVHm5sBCACeJ0bz' }, false],
      ['vpn.example.com.', 'IPSECKEY', { precedence: 10, gateway_type: 1, algorithm: 2, gateway: '192.0.2.38', public_key: 'AQNRU3mG7TVTO2BkR47usntb102uFJtugbo6BSGvgqt4AQ==' }, false],
    ]);
    expect(records.find((r) => r.type === 'CERT')?.description).toBe('x509');
    expect(records.find((r) => r.type === 'IPSECKEY')?.description).toBe('');
    // The apex NS for ns1 is derived from the zone's nameservers, which came along in order.
    const ns = await sql<{ name: string }>`select n.name from dns.zone_nameservers zn join dns.nameservers n on n.id = zn.nameserver_id
      where zn.zone_id = ${zone.id} order by zn.position`.execute(t.deps.db);
    expect(ns.rows.map((r) => r.name)).toEqual(['ns1.example.net.', 'ns2.example.net.']);
    expect((await t.deps.db.selectFrom('dns.zones').select('deleted_at').where('name', '=', 'old.example.').executeTakeFirstOrThrow()).deleted_at).not.toBeNull();
  });

  it('users log in with their NicTool passwords (PBKDF2, HMAC-SHA1, plaintext), rehashed to bcrypt on that login', async () => {
    const logins: Array<[string, string]> = [['root@NicTool', PBKDF2.password], [`${HMAC.username}@acme`, HMAC.password], ['test@acme', 'test']];
    for (const [login, password] of logins) {
      const client = t.client();
      expect((await client.post('/session', { username: login, password: 'wrong-password' })).status).toBe(401);
      expect((await client.post('/session', { username: login, password })).status).toBe(200);
    }
    const schemes = await t.deps.db.selectFrom('dns.users').select(['username', 'password_scheme']).where('username', 'in', ['root', 'unit-test', 'test']).orderBy('username').execute();
    expect(schemes).toEqual([
      { username: 'root', password_scheme: 'bcrypt' },
      { username: 'test', password_scheme: 'bcrypt' },
      { username: 'unit-test', password_scheme: 'bcrypt' },
    ]);
    expect((await t.client().post('/session', { username: 'root@NicTool', password: PBKDF2.password })).status).toBe(200);
  });

  it('a second run changes nothing', async () => {
    const count = async () => (await sql<{ n: string }>`select (select count(*) from dns.groups) + (select count(*) from dns.users)
      + (select count(*) from dns.nameservers) + (select count(*) from dns.zones) + (select count(*) from dns.zone_records) as n`.execute(t.deps.db)).rows[0]!.n;
    const before = await count();
    const second = await run(false);
    expect(second.imported).toEqual({ group: 0, user: 0, nameserver: 0, zone: 0, record: 0 });
    expect(second.unchanged).toEqual({ group: 5, user: 4, nameserver: 3, zone: 2 });
    expect(await count()).toBe(before);
  });
});

describe('import-nictool with publishing on (issue 27)', () => {
  it('queues every imported live zone for its publishable nameservers, in the zone\'s transaction', async () => {
    const fresh = await createTestDatabase({ kind: 'postgres', migrate: 'dns' });
    try {
      await run(false, fresh.db, {
        enabled: true, pollSeconds: 5, timeoutSeconds: 5, maxRetrySeconds: 60, powerdns: {},
        zoneFiles: { directory: '/nonexistent', includeFile: 'zones.conf', reloadCommand: [] },
      });
      const jobs = await sql<{ zone: string; nameserver: string }>`
        select z.name as zone, n.name as nameserver from dns.publish_jobs j
        join dns.zones z on z.id = j.zone_id join dns.nameservers n on n.id = j.nameserver_id order by 1, 2`.execute(fresh.db);
      // example.com is served by ns1 (djbdns: Keyzone publishes no tinydns) and ns2 (bind: zone files)
      expect(jobs.rows).toEqual([{ zone: 'example.com.', nameserver: 'ns2.example.net.' }]);
    } finally {
      await fresh.destroy();
    }
  });
});

describe('import-nictool --dry-run', () => {
  let fresh: TestDatabase;
  beforeAll(async () => {
    fresh = await createTestDatabase({ kind: 'postgres', migrate: 'dns' });
  });
  afterAll(async () => fresh?.destroy());

  it('reports what a real run would do and writes nothing', async () => {
    const dry = await run(true, fresh.db);
    expect(dry.dryRun).toBe(true);
    expect(dry.imported).toEqual({ group: 5, user: 4, nameserver: 3, zone: 2, record: 20 });
    const rows = await sql<{ n: string }>`select (select count(*) from dns.groups) + (select count(*) from dns.nictool_imports) as n`.execute(fresh.db);
    expect(rows.rows[0]!.n).toBe('0');
    expect(formatSummary(dry)).toMatch(/^dry run: nothing was written/);
  });

  it('the CLI prints the summary and exits 0; a bad URL exits 2 (a usage error) with the usage line', async () => {
    const main = path.join(__dirname, '..', '..', 'dist', 'main.js');
    const cli = (args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const child = spawn(process.execPath, [main, ...args], { env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATABASE_URL: fresh.url } });
        let out = '';
        let err = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.stderr.on('data', (c: Buffer) => (err += c.toString()));
        child.on('exit', (code) => resolve({ code, out, err }));
      });
    const ok = await cli(['import-nictool', '--from', nictool.url, '--dry-run']);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/dry run: nothing was written[\s\S]*zones +2 imported[\s\S]*record 9 \(pc in example\.com\.\): record type 24 is not supported/);
    const bad = await cli(['import-nictool', '--from', 'postgres://x/y']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/usage: main\.js import-nictool --from mysql:/);
  }, 60_000);
});
