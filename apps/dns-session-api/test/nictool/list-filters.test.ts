// NicTool's list filters (issue 38.4): zone, zone_like and description_like on GET /zone (one query with the page
// and its counts, as the plain list), name on GET /nameserver; other groups' objects never match.
import { startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';
import { expectStatus, newNameserver, newZone } from '../zones/dns-client';

let t: TestServer;
let admin: CookieClient;
let other: CookieClient;

beforeAll(async () => {
  t = await startTestServer();
  await t.seedUser({ group: 'filters.example', username: 'fran', isAdmin: true });
  await t.seedUser({ group: 'rivals.example', username: 'rita', isAdmin: true });
  admin = await t.login('fran@filters.example');
  other = await t.login('rita@rivals.example');
  await newZone(admin, { zone: 'shop.example.', description: 'The Web Shop' });
  await newZone(admin, { zone: 'shop-eu.example.', description: 'mirror for Europe' });
  await newZone(admin, { zone: 'blog.example.', description: 'shop news' });
  await newZone(admin, { zone: 'a_b.example.', description: '100% off' });
  await newZone(admin, { zone: 'axb.example.', description: '100 and off' });
  await newZone(other, { zone: 'shop.rival.example.', description: 'The Web Shop' });
});
afterAll(async () => t?.close());

const zonesOf = async (client: CookieClient, query: string) => {
  const res = expectStatus(await client.get(`/zone?${query}`), 200);
  return { names: res.body.zone.map((z: { zone: string }) => z.zone), pagination: res.body.meta.pagination };
};

it('zone= finds one zone by its name, with or without the final dot, in any case', async () => {
  expect(await zonesOf(admin, 'zone=shop.example.')).toEqual({ names: ['shop.example.'], pagination: { total: 5, filtered: 1, limit: 100, offset: 0 } });
  expect((await zonesOf(admin, 'zone=SHOP.Example')).names).toEqual(['shop.example.']);
  expect((await zonesOf(admin, 'zone=shop')).names).toEqual([]);
  // another group's zone of that name is not yours to find
  expect((await zonesOf(admin, 'zone=shop.rival.example')).names).toEqual([]);
  expect((await admin.get('/zone?zone=')).status).toBe(400);
});

it('zone_like and description_like match a part of the name or the description, % and _ taken literally', async () => {
  expect((await zonesOf(admin, 'zone_like=SHOP')).names).toEqual(['shop-eu.example.', 'shop.example.']);
  expect((await zonesOf(admin, 'description_like=shop')).names).toEqual(['blog.example.', 'shop.example.']);
  expect((await zonesOf(admin, 'zone_like=shop&description_like=web')).names).toEqual(['shop.example.']);
  expect((await zonesOf(admin, 'zone_like=a_b')).names).toEqual(['a_b.example.']);
  expect((await zonesOf(admin, `description_like=${encodeURIComponent('100%off')}`)).names).toEqual([]);
  expect((await zonesOf(admin, `description_like=${encodeURIComponent('100%')}`)).names).toEqual(['a_b.example.']);
  // with search, sort and paging as before; the counts say what matched
  expect(await zonesOf(admin, 'zone_like=shop&sort_by=zone&sort_dir=desc&limit=1')).toEqual({
    names: ['shop.example.'], pagination: { total: 5, filtered: 2, limit: 1, offset: 0 },
  });
  expect(await zonesOf(admin, 'zone_like=shop&offset=5')).toEqual({ names: [], pagination: { total: 5, filtered: 2, limit: 100, offset: 5 } });
  expect((await zonesOf(admin, 'search=europe&zone_like=eu')).names).toEqual(['shop-eu.example.']);
  expect((await zonesOf(other, 'description_like=web')).names).toEqual(['shop.rival.example.']);
  expect((await admin.get('/zone?zone_like=a%00b')).status).toBe(400);
});

it('GET /nameserver?name= narrows to one nameserver by name', async () => {
  await newNameserver(admin, { name: 'ns1.filters.example.' });
  await newNameserver(admin, { name: 'ns2.filters.example.' });
  await newNameserver(other, { name: 'ns1.rivals.example.' });
  const names = async (client: CookieClient, query: string) =>
    expectStatus(await client.get(`/nameserver?${query}`), 200).body.nameserver.map((n: { name: string }) => n.name);
  expect(await names(admin, '')).toEqual(['ns1.filters.example.', 'ns2.filters.example.']);
  expect(await names(admin, 'name=ns2.filters.example.')).toEqual(['ns2.filters.example.']);
  expect(await names(admin, 'name=NS2.Filters.Example')).toEqual(['ns2.filters.example.']);
  expect(await names(admin, 'name=ns1.rivals.example.')).toEqual([]);
  expect((await admin.get('/nameserver?name=')).status).toBe(400);
});
