// Issue 12: POST /zone and PUT /zone accept `serial` (uint32, as NicTool clients send it); it never goes
// backwards and keeps advancing on every change.
import { startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';
import { addRecord, expectStatus, uniqueZone } from '../zones/dns-client';

let t: TestServer;
let user: CookieClient;

beforeAll(async () => {
  t = await startTestServer();
  await t.seedUser({ group: 'serial.example', username: 'sam' });
  user = await t.login('sam@serial.example');
});
afterAll(async () => t?.close());

it('takes a serial on create and a larger one on change; the same one advances; a smaller one is 400', async () => {
  const created = expectStatus(await user.post('/zone', { zone: uniqueZone('serial'), serial: 4000000000 }), 201).body.zone;
  expect(created.serial).toBe(4000000000);
  const larger = expectStatus(await user.put(`/zone/${created.id}`, { serial: 4000000100, description: 'x' }), 200).body.zone;
  expect(larger.serial).toBe(4000000100);
  // A client that sends back what it read changes other fields; the serial still advances.
  const same = expectStatus(await user.put(`/zone/${created.id}`, { serial: 4000000100, description: 'y' }), 200).body.zone;
  expect(same.serial).toBe(4000000101);
  const back = await user.put(`/zone/${created.id}`, { serial: 4000000000 });
  expect(back.status).toBe(400);
  expect(back.body.errors).toEqual([expect.objectContaining({ field: 'serial', rule: 'serial_backwards' })]);
  // A record change advances it too.
  await addRecord(user, created.id, { owner: 'www', type: 'A', address: '192.0.2.1' });
  expect(expectStatus(await user.get(`/zone/${created.id}`), 200).body.zone.serial).toBe(4000000102);
  for (const bad of [-1, 4294967296, 1.5, '2026']) {
    expect((await user.post('/zone', { zone: uniqueZone('bad'), serial: bad })).status).toBe(400);
  }
});
