// import-nictool and the tenancy of names (issue 38.1): a NicTool zone above or below a live zone of a group
// outside its own group's subtree is skipped and listed (--allow-cross-group-zones imports it, listed too);
// records of a parent at or below a child zone Keyzone holds are skipped and listed, the delegation (NS, DS at
// the child's apex, glue) aside. NicTool checked neither.
import { importNicTool } from '../../src/nictool/import';
import { openNicTool } from '../../src/nictool/source';
import type { ImportSummary } from '../../src/nictool/summary';
import { startTestServer, type TestServer } from '../helpers/server';
import { createNicToolDb, type NicToolDb } from './nictool-db';

let nictool: NicToolDb;
const servers: TestServer[] = [];

beforeAll(async () => {
  nictool = await createNicToolDb();
  const x = (q: string) => nictool.exec(q);
  await x(`insert into nt_group (nt_group_id, parent_group_id, name, deleted) values (1, 0, 'NicTool', 0), (2, 1, 'a', 0), (3, 1, 'b', 0)`);
  // The child first: NicTool's order is the zone id, and the parent's records are judged against the zones held then.
  await x(`insert into nt_zone (nt_zone_id, nt_group_id, zone, mailaddr, description, serial, refresh, retry, expire, minimum, ttl, deleted) values
    (1, 2, 'sub.corp.example', NULL, '', 1, NULL, NULL, NULL, NULL, NULL, 0),
    (2, 2, 'corp.example', NULL, '', 1, NULL, NULL, NULL, NULL, NULL, 0),
    (3, 3, 'www.corp.example', NULL, '', 1, NULL, NULL, NULL, NULL, NULL, 0),
    (4, 3, 'gone.corp.example', NULL, '', 1, NULL, NULL, NULL, NULL, NULL, 1)`);
  await x(`insert into nt_zone_record (nt_zone_record_id, nt_zone_id, name, ttl, description, type_id, address, weight, priority, other, deleted) values
    (1, 2, 'www', 3600, '', 1, '192.0.2.10', NULL, NULL, NULL, 0),
    (2, 2, 'x.sub', 3600, '', 1, '192.0.2.66', NULL, NULL, NULL, 0),
    (3, 2, 'ns1.sub', 3600, '', 1, '192.0.2.53', NULL, NULL, NULL, 0),
    (4, 2, 'sub', 3600, '', 2, 'ns1.sub.corp.example.', NULL, NULL, NULL, 0),
    (5, 2, '_acme-challenge.sub', 3600, '', 16, 'token', NULL, NULL, NULL, 0)`);
}, 60_000);

afterAll(async () => {
  for (const s of servers) await s.close();
  await nictool?.destroy();
});

async function importInto(allowCrossGroupZones?: boolean): Promise<{ t: TestServer; summary: ImportSummary }> {
  const t = await startTestServer();
  servers.push(t);
  const source = await openNicTool(nictool.url);
  try {
    return { t, summary: await importNicTool({ db: t.deps.db, clock: t.clock }, source, { dryRun: false, allowCrossGroupZones }) };
  } finally {
    await source.close();
  }
}

const noteFor = (summary: ImportSummary, kind: string, id: number) => summary.notes.find((n) => n.kind === kind && n.nictoolId === id)?.reason;
const liveZones = (t: TestServer) =>
  t.deps.db.selectFrom('dns.zones').select('name').where('deleted_at', 'is', null).orderBy('name').execute().then((rows) => rows.map((r) => r.name));

test('a zone below another group\'s zone is skipped and listed; one of the same group, and a deleted one, are imported', async () => {
  const { t, summary } = await importInto();
  expect(noteFor(summary, 'zone', 3)).toBe('www.corp.example.: a zone of another group holds names above this one; an administrator who manages that zone ' +
    'may allow it (POST /zone/<id>/delegation); not imported (nor its records); --allow-cross-group-zones imports it');
  expect(await liveZones(t)).toEqual(['corp.example.', 'sub.corp.example.']);
  expect(summary.imported.zone).toBe(3);
  // The parent's records in the child's names are skipped, the delegation's NS and glue kept.
  expect(noteFor(summary, 'record', 2)).toMatch(/^x\.sub\.corp\.example\. lies in the zone sub\.corp\.example\., which Keyzone holds of its own.*; not imported$/);
  expect(noteFor(summary, 'record', 5)).toMatch(/lies in the zone sub\.corp\.example\./);
  for (const id of [1, 3, 4]) expect(noteFor(summary, 'record', id)).toBeUndefined();
  const owners = await t.deps.db.selectFrom('dns.zone_records').innerJoin('dns.zones', 'dns.zones.id', 'dns.zone_records.zone_id')
    .select(['owner', 'type']).where('dns.zones.name', '=', 'corp.example.').orderBy('owner').execute();
  expect(owners).toEqual([
    { owner: 'ns1.sub.corp.example.', type: 'A' }, { owner: 'sub.corp.example.', type: 'NS' }, { owner: 'www.corp.example.', type: 'A' },
  ]);
});

test('--allow-cross-group-zones imports it, and says so', async () => {
  const { t, summary } = await importInto(true);
  expect(noteFor(summary, 'zone', 3)).toMatch(/^www\.corp\.example\.: a zone of another group holds names above this one.*; imported as --allow-cross-group-zones asks$/);
  expect(await liveZones(t)).toEqual(['corp.example.', 'sub.corp.example.', 'www.corp.example.']);
});
