// Upgrading a DNS database that holds data written before the issue-12 migrations: duplicate group names
// (then unique only among siblings) are renamed and audited, and plain-text TXT data becomes the exact
// character-strings the export used to write.
import { Migrator, sql } from 'kysely';
import { migrateDns } from '../src';
import { dnsMigrations } from '../src/dns/migrations';
import { createTestDatabase, type TestDatabase } from '../src/testing';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ kind: 'postgres', migrate: 'none' });
});
afterAll(async () => database?.destroy());

it('renames duplicate group names and converts TXT data, keeping what export wrote', async () => {
  const db = database.db;
  const before = dnsMigrations.filter(([name]) => name < '202611240100');
  await sql`create schema if not exists dns`.execute(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => Object.fromEntries(before) },
    migrationTableSchema: 'dns',
    migrationTableName: 'kysely_migration',
    migrationLockTableName: 'kysely_migration_lock',
  });
  const { error } = await migrator.migrateToLatest();
  expect(error).toBeUndefined();

  const { rows: groups } = await sql<{ id: number }>`
    insert into dns.groups (parent_id, name) values (null, 'Top'), (null, 'Other') returning id`.execute(db);
  const [top, other] = groups.map((g) => g.id) as [number, number];
  await sql`insert into dns.groups (parent_id, name) values (${top}, 'Shared'), (${other}, 'shared'), (${other}, 'Unique')`.execute(db);
  const { rows: zones } = await sql<{ id: number }>`
    insert into dns.zones (group_id, name, mailaddr, serial, refresh, retry, expire, minimum, ttl)
    values (${top}, 'example.com.', 'h.example.com.', 1, 1, 1, 1, 1, 60) returning id`.execute(db);
  const zoneId = zones[0]!.id;
  const long = 'é'.repeat(200); // 400 octets: two strings on export
  await sql`insert into dns.zone_records (zone_id, owner, type, ttl, rdata) values
    (${zoneId}, 'a.example.com.', 'TXT', 60, ${JSON.stringify({ data: 'say "hi" \\ there' })}::jsonb),
    (${zoneId}, 'b.example.com.', 'TXT', 60, ${JSON.stringify({ data: long })}::jsonb),
    (${zoneId}, 'c.example.com.', 'A', 60, ${JSON.stringify({ address: '192.0.2.1' })}::jsonb)`.execute(db);

  // Every later migration runs after the old data is in place (the list itself is the migrations index's).
  expect(await migrateDns(db)).toEqual(dnsMigrations.map(([name]) => name).filter((name) => name >= '202611240100'));

  const names = await sql<{ name: string }>`select name from dns.groups order by id`.execute(db);
  const renamed = names.rows.map((r) => r.name);
  expect(renamed.slice(0, 3)).toEqual(['Top', 'Other', 'Shared']);
  expect(renamed[3]).toMatch(/^shared-\d+$/);
  expect(renamed[4]).toBe('Unique');
  const audit = await sql<{ after: { name: string } }>`select after from dns.audit_log where object_type = 'group'`.execute(db);
  expect(audit.rows.map((r) => r.after.name)).toEqual([renamed[3]]);

  const records = await sql<{ owner: string; rdata: Record<string, string> }>`select owner, rdata from dns.zone_records order by owner`.execute(db);
  expect(records.rows.map((r) => r.rdata)).toEqual([
    { data: '"say \\"hi\\" \\\\ there"' },
    { data: `"${'\\195\\169'.repeat(127)}\\195" "\\169${'\\195\\169'.repeat(72)}"` },
    { address: '192.0.2.1' },
  ]);
  // A duplicate can no longer be created.
  await expect(sql`insert into dns.groups (parent_id, name) values (${other}, 'TOP')`.execute(db)).rejects.toMatchObject({ code: '23505' });
});
