#!/usr/bin/env node
// Zone publishing (issue 19), through the real HTTP API on PostgreSQL to a real PowerDNS (Debian's pdns-server
// with the sqlite3 backend, started here on free ports):
//   1. write-to-answer latency: --changes (default 200) PUT /zone_record changes of one A record, each timed from
//      the request until `dig` at PowerDNS answers the new address (polled every 5 ms); p50 and p95.
//   2. publish throughput: a zone of --records records (default 50,000) imported, then given the PowerDNS
//      nameserver; the time until PowerDNS serves the last record; records/s.
//
//   pnpm run build, then: node bench/dns-publish.js [--changes 200] [--records 50000]
// Needs pdns-server, pdns-backend-sqlite3, sqlite3 and dig (bind9-dnsutils). A fresh database on
// TEST_DATABASE_URL's server is created and dropped.
'use strict';

const path = require('node:path');
const os = require('node:os');
const { execFile, execFileSync, spawn } = require('node:child_process');
const { mkdtempSync, writeFileSync, rmSync } = require('node:fs');
const { freePort } = require('./support');

const APP_DIST = path.dirname(require.resolve('@keyzone/dns-session-api/package.json'));
const PASSWORD = 'Bench#Passw0rd-123';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const dig = (port, name, type) => new Promise((resolve) => {
  execFile('dig', ['+short', '+time=1', '+tries=1', '@127.0.0.1', '-p', String(port), name, type], (_err, stdout) => resolve(String(stdout).trim()));
});
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

async function request(base, method, url, { cookie, json, text } = {}) {
  const headers = {};
  if (cookie) headers.cookie = cookie;
  if (json !== undefined) headers['content-type'] = 'application/json';
  if (text !== undefined) headers['content-type'] = 'text/dns';
  const res = await fetch(new URL(url, base), { method, headers, body: json !== undefined ? JSON.stringify(json) : text });
  const body = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${body.slice(0, 300)}`);
  return { headers: res.headers, json: body ? JSON.parse(body) : undefined };
}

async function until(probe, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function startPowerDns(dir) {
  const [dnsPort, apiPort] = [await freePort(), await freePort()];
  const database = path.join(dir, 'pdns.sqlite3');
  execFileSync('sh', ['-c', `sqlite3 '${database}' < /usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql`]);
  writeFileSync(path.join(dir, 'pdns.conf'), [
    'launch=gsqlite3', `gsqlite3-database=${database}`, 'local-address=127.0.0.1', `local-port=${dnsPort}`,
    'webserver=yes', 'webserver-address=127.0.0.1', `webserver-port=${apiPort}`, 'webserver-allow-from=127.0.0.0/8',
    'api=yes', 'api-key=bench-key', `socket-dir=${dir}`, 'guardian=no', 'daemon=no', 'disable-syslog=yes', 'loglevel=3',
    'zone-cache-refresh-interval=0', 'cache-ttl=0', 'negquery-cache-ttl=0', 'query-cache-ttl=0', '',
  ].join('\n'));
  const child = spawn('pdns_server', [`--config-dir=${dir}`], { stdio: 'ignore' });
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  await until(async () => {
    try { return (await fetch(`${apiUrl}/api/v1/servers/localhost`, { headers: { 'x-api-key': 'bench-key' } })).ok; } catch { return false; }
  }, 30_000, 'PowerDNS to start');
  return { dnsPort, apiUrl, stop: () => child.kill('SIGTERM') };
}

async function main() {
  const changes = arg('changes', 200);
  const records = arg('records', 50000);
  const { loadDnsConfig } = require('@keyzone/config');
  const { createTestDatabase } = require('@keyzone/db/testing');
  const { createLogger } = require(require.resolve('@keyzone/logging', { paths: [APP_DIST] }));
  const { createApp } = require(path.join(APP_DIST, 'dist/app.js'));
  const { buildDeps } = require(path.join(APP_DIST, 'dist/deps.js'));
  const { listen, urlOf, close } = require(path.join(APP_DIST, 'dist/http/server.js'));
  const { createUserWithGroup } = require(path.join(APP_DIST, 'dist/services/directory/bootstrap.js'));

  const dir = mkdtempSync(path.join(os.tmpdir(), 'kz-bench-publish-'));
  const pdns = await startPowerDns(dir);
  const database = await createTestDatabase({ kind: 'postgres', migrate: 'dns' });
  let server;
  let deps;
  try {
    const loaded = loadDnsConfig({ dir: APP_DIST, nodeEnv: 'production', env: { DATABASE_URL: database.url, SESSION_SECRET: 'bench-session-secret-of-at-least-32-chars' } });
    const config = {
      ...loaded,
      publish: { ...loaded.publish, enabled: true, pollSeconds: 0.5, powerdns: { 'ns1.bench.test.': { url: pdns.apiUrl, apiKey: 'bench-key', serverId: 'localhost' } } },
    };
    deps = buildDeps({ config, db: database.db, log: createLogger({ name: 'dns-publish-bench', level: 'error' }) });
    await createUserWithGroup(deps, { group: 'bench.example', username: 'bench', password: PASSWORD, email: 'bench@example.com', firstName: 'B', lastName: 'U', isAdmin: true });
    server = await listen(createApp(deps), { host: '127.0.0.1', port: 0, keepAliveTimeoutSeconds: 5 });
    deps.publisher.start();
    const base = urlOf(server);
    const login = await request(base, 'POST', '/session', { json: { username: 'bench@bench.example', password: PASSWORD } });
    const cookie = login.headers.getSetCookie()[0].split(';')[0];
    const ns = (await request(base, 'POST', '/nameserver', { cookie, json: { name: 'ns1.bench.test.', address: '192.0.2.1', export: { type: 'powerdns' } } })).json.nameserver;

    // 1. latency
    const zone = (await request(base, 'POST', '/zone', { cookie, json: { zone: 'latency.example.', mailaddr: 'hostmaster@latency.example', nameservers: [ns.id] } })).json.zone;
    const record = (await request(base, 'POST', '/zone_record', { cookie, json: { zid: zone.id, owner: 'www', type: 'A', ttl: 60, address: '10.0.0.1' } })).json.zone_record;
    await until(async () => (await dig(pdns.dnsPort, 'www.latency.example.', 'A')) === '10.0.0.1', 30_000, 'the first answer');
    const latencies = [];
    for (let i = 0; i < changes; i++) {
      const address = `10.1.${(i >> 8) & 255}.${i & 255}`;
      const t0 = process.hrtime.bigint();
      await request(base, 'PUT', `/zone_record/${record.id}`, { cookie, json: { address } });
      await until(async () => (await dig(pdns.dnsPort, 'www.latency.example.', 'A')) === address, 30_000, `change ${i}`);
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    console.log(`write to dig answer, ${changes} changes: p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`);

    // 2. throughput
    const lines = ['$TTL 3600', '@ IN SOA ns1.bench.test. hostmaster 2026010100 86400 7200 1209600 3600'];
    for (let i = 0; i < records; i++) lines.push(`h${i} A 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    const imported = (await request(base, 'POST', '/zone/import?zone=big.example.', { cookie, text: `${lines.join('\n')}\n` })).json.zone;
    const last = `h${records - 1}.big.example.`;
    const t0 = process.hrtime.bigint();
    await request(base, 'PUT', `/zone/${imported.id}`, { cookie, json: { nameservers: [ns.id] } });
    await until(async () => (await dig(pdns.dnsPort, last, 'A')) !== '', 600_000, 'the big zone');
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    console.log(`publish a ${records}-record zone to PowerDNS: ${seconds.toFixed(1)} s (${Math.round(records / seconds)} records/s)`);
  } finally {
    await deps?.publisher?.stop();
    if (server) await close(server);
    await database.destroy();
    pdns.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
