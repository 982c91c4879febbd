import { sql } from 'kysely';
import { startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';
import { expectStatus, newNameserver, newZone } from './dns-client';

// Multi-row writes of zones and nameservers: no object restored into a deleted group, and no deadlock (a 500)
// between a nameserver change and a zone change that both lock the zone and the nameserver.

let server: TestServer;
let admin: CookieClient;
let groupId: number;

beforeAll(async () => {
  server = await startTestServer({ kind: 'postgres' });
  ({ groupId } = await server.seedUser({ group: 'cons-acme', username: 'admin', isAdmin: true }));
  admin = await server.login('admin@cons-acme');
});
afterAll(() => server?.close());

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('condition not reached');
}

describe('zone and nameserver consistency', () => {
  test('a zone or nameserver whose group was deleted cannot be restored into it (404), and nothing changes', async () => {
    const sub = expectStatus(await admin.post('/group', { name: 'cons-sub', parent_gid: groupId }), 201).body.group;
    const ns = await newNameserver(admin, { gid: sub.id });
    const zone = await newZone(admin, { gid: sub.id });
    expectStatus(await admin.delete(`/zone/${zone.id}`), 200);
    expectStatus(await admin.delete(`/nameserver/${ns.id}`), 200);
    expectStatus(await admin.delete(`/group/${sub.id}`), 200);
    const audit = async () => (await sql<{ n: string }>`select count(*)::text as n from dns.audit_log`.execute(server.deps.db)).rows[0]?.n;
    const before = await audit();

    for (const path of [`/zone/${zone.id}`, `/nameserver/${ns.id}`]) {
      const res = await admin.put(path, { deleted: false });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ statusCode: 404, error: 'Not Found', message: 'Group not found' });
      expect((await admin.get(`${path}?deleted=true`)).status).toBe(200);
    }
    expect(await audit()).toBe(before);
    // restoring into a live group still works, also when the move and the restore are one request
    const zone2 = await newZone(admin);
    expectStatus(await admin.delete(`/zone/${zone2.id}`), 200);
    expect(expectStatus(await admin.put(`/zone/${zone2.id}`, { deleted: false }), 200).body.zone.deleted).toBe(false);
    expect(expectStatus(await admin.put(`/zone/${zone.id}`, { deleted: false, gid: groupId }), 200).body.zone).toMatchObject({ deleted: false, gid: groupId });
  });

  test('PUT /nameserver while a zone change holds the zone and then share-locks the nameserver: both finish, no deadlock', async () => {
    const ns = await newNameserver(admin);
    const zone = await newZone(admin, { nameservers: [ns.id] });
    let put: Promise<{ status: number; text: string }> | undefined;
    // The zone side, as PUT /zone runs it: its zone row FOR UPDATE, then its nameservers FOR SHARE.
    await server.deps.db.transaction().execute(async (trx) => {
      await sql`select id from dns.zones where id = ${zone.id} for update`.execute(trx);
      put = admin.put(`/nameserver/${ns.id}`, { description: 'changed while the zone was locked' });
      // the nameserver change is now waiting for a lock this transaction holds
      await waitFor(async () => {
        const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(server.deps.db);
        return (rows[0]?.n ?? 0) > 0;
      });
      await sql`select id from dns.nameservers where id = ${ns.id} for share`.execute(trx);
    });
    const res = await put!;
    expect([res.status, res.text]).toEqual([200, expect.stringContaining('changed while the zone was locked')]);
    expect((await admin.get(`/zone/${zone.id}`)).body.zone.serial).toBe(zone.serial + 1);
  });
});
