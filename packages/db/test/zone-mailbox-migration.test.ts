// Issue 38: zones stored with the old default mailbox "hostmaster.<zone>" at a name that is not a host name (which
// BIND refuses to load) get hostmaster at the nearest host-name ancestor, and a new serial; others are left alone.
import { sql } from 'kysely';
import { defaultMailbox, up } from '../src/dns/migrations/202611282100_zone_mailbox_host_names';
import { createTestDatabase, type TestDatabase } from '../src/testing';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ kind: 'postgres', migrate: 'dns' });
});
afterAll(async () => database?.destroy());

const LONG = `${['a'.repeat(63), 'a'.repeat(63), 'a'.repeat(63)].join('.')}.${'b'.repeat(61)}.`;

it('moves only the old default mailbox of zones whose names are not host names', async () => {
  const db = database.db;
  const { rows } = await sql<{ id: number }>`insert into dns.groups (parent_id, name) values (null, 'Mailboxes') returning id`.execute(db);
  const group = rows[0]!.id;
  const zones: Array<[string, string, number]> = [
    ['0/26.2.0.192.in-addr.arpa.', 'hostmaster.0/26.2.0.192.in-addr.arpa.', 7],
    ['_tcp.example.', 'hostmaster._tcp.example.', 4294967295],
    [LONG, `hostmaster.${LONG}`, 9],
    ['plain.example.', 'hostmaster.plain.example.', 5],
    ['a_b.example.', 'dns.example.com.', 3],
  ];
  for (const [name, mailaddr, serial] of zones) {
    await sql`insert into dns.zones (group_id, name, mailaddr, serial, refresh, retry, expire, minimum, ttl)
      values (${group}, ${name}, ${mailaddr}, ${serial}, 1, 1, 1, 1, 60)`.execute(db);
  }
  await up(db);
  const after = await sql<{ name: string; mailaddr: string; serial: string }>`select name, mailaddr, serial from dns.zones where group_id = ${group} order by id`.execute(db);
  expect(after.rows.map((r) => [r.mailaddr, Number(r.serial)])).toEqual([
    ['hostmaster.2.0.192.in-addr.arpa.', 8],
    ['hostmaster.example.', 1],
    [defaultMailbox(LONG), 10],
    ['hostmaster.plain.example.', 5],
    ['dns.example.com.', 3],
  ]);
  expect(defaultMailbox(LONG)).toBe(`hostmaster.${'a'.repeat(63)}.${'a'.repeat(63)}.${'b'.repeat(61)}.`);
});
