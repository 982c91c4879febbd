// Issue 12: a zone import cannot stall the process. Bodies above http.zone_file_limit are 413 (read to the
// end first, so the client sees it), at most 100 bad lines are listed with the count of the rest, other
// requests are answered while a large file is parsed, and only text/dns (not text/plain, which a cross-site
// form can send) is taken as a raw zone file.
import http from 'node:http';
import { startTestServer, type TestServer } from '../helpers/server';
import type { CookieClient } from '../helpers/client';
import { uniqueZone } from '../zones/dns-client';

let t: TestServer;
let user: CookieClient;

beforeAll(async () => {
  t = await startTestServer();
  await t.seedUser({ group: 'import.example', username: 'ivan' });
  user = await t.login('ivan@import.example');
});
afterAll(async () => t?.close());

const soa = '$TTL 3600\n@ SOA ns1.example.net. hostmaster.example.net. 1 86400 7200 1209600 3600\n';

function importRaw(body: string | Buffer, type = 'text/dns', zone = uniqueZone()) {
  return user.request('POST', `/zone/import?zone=${zone}`, { raw: body as string, headers: { 'content-type': type } });
}

it('a file above http.zone_file_limit (10 MB) is 413, answered after the body was read, with Connection: close', async () => {
  const big = soa + 'x'.repeat(10 * 1024 * 1024);
  const res = await importRaw(big);
  expect(res.status).toBe(413);
  expect(res.body).toEqual({ statusCode: 413, error: 'Payload Too Large', message: 'A zone file may be at most 10485760 bytes (http.zone_file_limit)' });
  expect(res.headers.get('connection')).toBe('close');
});

it('lists at most 100 bad lines and counts the rest', async () => {
  const bad = soa + Array.from({ length: 5000 }, (_, i) => `h${i} A 192.0.2.${300 + i}`).join('\n') + '\n';
  const res = await importRaw(bad);
  expect(res.status).toBe(400);
  expect(res.body.errors).toHaveLength(100);
  expect(res.body.error_count).toBe(5000);
  expect(res.body.errors_not_listed).toBe(4900);
  expect(res.body.errors[0]).toEqual({ line: 3, message: expect.stringMatching(/^A address/) });
  expect(res.body.message).toMatch(/^The zone file has 5000 bad line\(s\): line 3: .*; and 4980 more$/);
  expect(JSON.stringify(res.body).length).toBeLessThan(20_000);
});

it('other requests are answered while a large file is parsed', async () => {
  const lines = Array.from({ length: 60_000 }, (_, i) => `h${i} A 192.0.2.${i % 250}`);
  const file = soa + '@ NS ns1.example.net.\n' + lines.join('\n') + '\n';
  let importDone = false;
  const importing = importRaw(file).then((res) => {
    importDone = true;
    return res;
  });
  // Wait until the server is busy with it, then ask for /health: it must not wait for the import.
  let healthAnsweredDuringImport = false;
  while (!importDone) {
    const health = await fetchHealth();
    if (health === 200 && !importDone) healthAnsweredDuringImport = true;
    if (healthAnsweredDuringImport) break;
  }
  const res = await importing;
  expect(res.status).toBe(201);
  expect(res.body.records).toBe(60_001); // and the apex NS, whose nameserver Keyzone does not know
  expect(healthAnsweredDuringImport).toBe(true);
}, 120_000);

function fetchHealth(): Promise<number> {
  return new Promise((resolve, reject) => {
    http.get(new URL('/health', t.url), (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

it('only text/dns is a zone file: text/plain (which a cross-site form can send) is 400 and nothing is created', async () => {
  const zone = uniqueZone();
  const res = await importRaw(soa + '@ NS ns1.example.net.\n', 'text/plain', zone);
  expect(res.status).toBe(400);
  expect(res.body).toEqual({
    statusCode: 400,
    error: 'Bad Request',
    message: 'Invalid request payload input: send the zone file as Content-Type: text/dns, or JSON {zone, zonefile}',
  });
  expect((await user.get(`/zone?search=${zone}`)).body.zone).toEqual([]);
});
