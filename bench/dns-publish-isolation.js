#!/usr/bin/env node
// Publishing isolation (issue 38): how long an unrelated change takes to reach its nameserver while a zone of
// --records records (default 100,000) is being published to a PowerDNS and a BIND nameserver.
//
// Each round gives the big zone both nameservers (PowerDNS creates it, BIND gets a 100,000-record file and a
// reload), then, for as long as the big zone is not yet served by both, changes an A record in a small zone on the
// PowerDNS nameserver and one in a small zone on the BIND nameserver, each timed from the request until `dig` at
// that nameserver answers the new address (polled every 5 ms). Then the big zone leaves both nameservers again
// (and is waited for) before the next round. Reports p50, p95 and max per nameserver kind, beside the same change
// measured first with nothing else publishing (the machine's load moves both), and the event loop's delays.
//
// Last, --big-changes (default 5) changes of one record inside the big zone, timed until each nameserver has it.
//
//   pnpm run build, then: node bench/dns-publish-isolation.js [--records 100000] [--rounds 3] [--big-changes 5]
// BENCH_APP_DIST=<dir> runs another build of the app's dist (e.g. the commit before a change).
// Needs pdns-server, pdns-backend-sqlite3, sqlite3, named and dig. A fresh database on TEST_DATABASE_URL's server.
'use strict';

const dgram = require('node:dgram');
const path = require('node:path');
const os = require('node:os');
const { execFile, execFileSync, spawn } = require('node:child_process');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { mkdirSync, mkdtempSync, writeFileSync, rmSync } = require('node:fs');
const { freePort } = require('./support');

const APP_DIR = path.dirname(require.resolve('@keyzone/dns-session-api/package.json'));
const APP_DIST = process.env.BENCH_APP_DIST ? path.resolve(process.env.BENCH_APP_DIST) : path.join(APP_DIR, 'dist');
const PASSWORD = 'Bench#Passw0rd-123';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
/**
 * The A records (or '' for none) at name from 127.0.0.1:port: one UDP query from this process, so polling every
 * 5 ms does not spawn a dig each time (which on two cores would cost more than what is measured).
 */
let queryId = 0;
function digA(port, name) {
  return new Promise((resolve) => {
    const socket = dgram.createSocket('udp4');
    queryId = (queryId + 1) & 0xffff;
    const labels = name.replace(/\.$/, '').split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]));
    const packet = Buffer.concat([Buffer.from([queryId >> 8, queryId & 255, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), ...labels, Buffer.from([0, 0, 1, 0, 1])]);
    const done = (answer) => {
      clearTimeout(timer);
      socket.close();
      resolve(answer);
    };
    const timer = setTimeout(() => done(''), 1000);
    socket.on('message', (msg) => {
      const count = msg.readUInt16BE(6);
      let at = 12;
      const skipName = () => {
        for (;;) {
          const len = msg[at];
          if (len >= 0xc0) { at += 2; return; }
          at += 1 + len;
          if (len === 0) return;
        }
      };
      skipName();
      at += 4;
      const addresses = [];
      for (let i = 0; i < count; i++) {
        skipName();
        const type = msg.readUInt16BE(at);
        const length = msg.readUInt16BE(at + 8);
        if (type === 1 && length === 4) addresses.push([...msg.subarray(at + 10, at + 14)].join('.'));
        at += 10 + length;
      }
      done(addresses.sort().join('\n'));
    });
    socket.send(packet, port, '127.0.0.1');
  });
}
const dig = (port, name, type) => {
  if (type === 'A') return digA(port, name);
  return new Promise((resolve) => {
    execFile('dig', ['+short', '+time=1', '+tries=1', '@127.0.0.1', '-p', String(port), name, type], (_err, stdout) => resolve(String(stdout).trim()));
  });
};
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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

async function until(probe, timeoutMs, what, everyMs = 5) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await sleep(everyMs);
  }
}

async function startPowerDns(dir) {
  mkdirSync(dir, { recursive: true });
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
  }, 30_000, 'PowerDNS to start', 100);
  return { dnsPort, apiUrl, stop: () => child.kill('SIGTERM') };
}

async function startBind(dir) {
  const zonesDir = path.join(dir, 'zones');
  mkdirSync(zonesDir, { recursive: true });
  writeFileSync(path.join(zonesDir, 'keyzone-zones.conf'), '');
  const dnsPort = await freePort();
  writeFileSync(path.join(dir, 'named.conf'), `options { directory "${dir}"; pid-file "${dir}/named.pid"; listen-on port ${dnsPort} { 127.0.0.1; };
  listen-on-v6 { none; }; recursion no; notify no; };
controls { };
include "${zonesDir}/keyzone-zones.conf";
`);
  const child = spawn('named', ['-g', '-c', path.join(dir, 'named.conf')], { stdio: 'ignore' });
  await until(async () => (await dig(dnsPort, 'localhost.', 'A')) !== undefined && child.exitCode === null, 30_000, 'BIND to start', 100);
  await sleep(500);
  return { dnsPort, zonesDir, reloadCommand: ['kill', '-HUP', String(child.pid)], stop: () => child.kill('SIGTERM') };
}

async function main() {
  const records = arg('records', 100000);
  const rounds = arg('rounds', 3);
  const bigChanges = arg('big-changes', 5);
  const { loadDnsConfig } = require('@keyzone/config');
  const { createTestDatabase } = require('@keyzone/db/testing');
  const { createLogger } = require(require.resolve('@keyzone/logging', { paths: [APP_DIR] }));
  const { createApp } = require(path.join(APP_DIST, 'app.js'));
  const { buildDeps } = require(path.join(APP_DIST, 'deps.js'));
  const { listen, urlOf, close } = require(path.join(APP_DIST, 'http/server.js'));
  const { createUserWithGroup } = require(path.join(APP_DIST, 'services/directory/bootstrap.js'));

  const dir = mkdtempSync(path.join(os.tmpdir(), 'kz-bench-isolation-'));
  const pdns = await startPowerDns(path.join(dir, 'pdns'));
  const bind = await startBind(path.join(dir, 'bind'));
  const database = await createTestDatabase({ kind: 'postgres', migrate: 'dns' });
  let server;
  let deps;
  try {
    const loaded = loadDnsConfig({ dir: APP_DIR, nodeEnv: 'production', env: { DATABASE_URL: database.url, SESSION_SECRET: 'bench-session-secret-of-at-least-32-chars' } });
    const config = {
      ...loaded,
      quotas: { ...loaded.quotas, recordsPerZone: 0 },
      publish: {
        ...loaded.publish, enabled: true, pollSeconds: 0.5, timeoutSeconds: 30,
        powerdns: { 'ns1.bench.test.': { url: pdns.apiUrl, apiKey: 'bench-key', serverId: 'localhost' } },
        zoneFiles: { directory: bind.zonesDir, includeFile: 'keyzone-zones.conf', reloadCommand: bind.reloadCommand },
      },
    };
    deps = buildDeps({ config, db: database.db, log: createLogger({ name: 'dns-publish-isolation-bench', level: 'error' }) });
    await createUserWithGroup(deps, { group: 'bench.example', username: 'bench', password: PASSWORD, email: 'bench@example.com', firstName: 'B', lastName: 'U', isAdmin: true });
    server = await listen(createApp(deps), { host: '127.0.0.1', port: 0, keepAliveTimeoutSeconds: 5 });
    deps.publisher.start();
    const base = urlOf(server);
    const login = await request(base, 'POST', '/session', { json: { username: 'bench@bench.example', password: PASSWORD } });
    const cookie = login.headers.getSetCookie()[0].split(';')[0];
    const ns1 = (await request(base, 'POST', '/nameserver', { cookie, json: { name: 'ns1.bench.test.', address: '192.0.2.1', export: { type: 'powerdns' } } })).json.nameserver;
    const ns2 = (await request(base, 'POST', '/nameserver', { cookie, json: { name: 'ns2.bench.test.', address: '192.0.2.2', export: { type: 'bind' } } })).json.nameserver;

    // The small zones, one per nameserver, each with the A record the rounds change.
    const small = [];
    for (const [kind, ns, port] of [['PowerDNS', ns1, pdns.dnsPort], ['BIND', ns2, bind.dnsPort]]) {
      const name = `small-${kind.toLowerCase()}.example.`;
      const zone = (await request(base, 'POST', '/zone', { cookie, json: { zone: name, mailaddr: `hostmaster@${name}`, nameservers: [ns.id] } })).json.zone;
      const record = (await request(base, 'POST', '/zone_record', { cookie, json: { zid: zone.id, owner: 'www', type: 'A', ttl: 60, address: '10.0.0.1' } })).json.zone_record;
      await until(async () => (await dig(port, `www.${name}`, 'A')) === '10.0.0.1', 60_000, `${name} on ${kind}`);
      small.push({ kind, port, name, record, latencies: [], n: 0 });
    }

    const lines = ['$TTL 3600', '@ IN SOA ns1.bench.test. hostmaster 2026010100 86400 7200 1209600 3600'];
    for (let i = 0; i < records; i++) lines.push(`h${i} A 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    const big = (await request(base, 'POST', '/zone/import?zone=big.example.', { cookie, text: `${lines.join('\n')}\n` })).json.zone;
    const last = `h${records - 1}.big.example.`;
    const bigServed = async () => (await dig(pdns.dnsPort, last, 'A')) !== '' && (await dig(bind.dnsPort, last, 'A')) !== '';

    // The same changes with nothing else publishing: what the machine gives right now, for comparison.
    const idle = new Map(small.map((s) => [s.kind, []]));
    for (let i = 0; i < 30; i++) {
      await Promise.all(small.map(async (s) => {
        s.n += 1;
        const address = `10.1.${(s.n >> 8) & 255}.${s.n & 255}`;
        const start = process.hrtime.bigint();
        await request(base, 'PUT', `/zone_record/${s.record.id}`, { cookie, json: { address } });
        await until(async () => (await dig(s.port, `www.${s.name}`, 'A')) === address, 60_000, `${s.kind} idle change ${s.n}`);
        idle.get(s.kind).push(Number(process.hrtime.bigint() - start) / 1e6);
      }));
    }

    const stalls = monitorEventLoopDelay({ resolution: 10 });
    stalls.enable();
    for (let round = 0; round < rounds; round++) {
      const t0 = Date.now();
      await request(base, 'PUT', `/zone/${big.id}`, { cookie, json: { nameservers: [ns1.id, ns2.id] } });
      const putSeconds = (Date.now() - t0) / 1000;
      // Changes in the small zones while the big zone is on its way (at least one each per round).
      let first = true;
      while (first || !(await bigServed())) {
        first = false;
        await Promise.all(small.map(async (s) => {
          s.n += 1;
          const address = `10.1.${(s.n >> 8) & 255}.${s.n & 255}`;
          const start = process.hrtime.bigint();
          await request(base, 'PUT', `/zone_record/${s.record.id}`, { cookie, json: { address } });
          await until(async () => (await dig(s.port, `www.${s.name}`, 'A')) === address, 900_000, `${s.kind} change ${s.n}`);
          s.latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
        }));
      }
      await until(bigServed, 900_000, 'the big zone on both', 100);
      const published = (Date.now() - t0) / 1000;
      await request(base, 'PUT', `/zone/${big.id}`, { cookie, json: { nameservers: [] } });
      await until(async () => (await dig(pdns.dnsPort, last, 'A')) === '' && (await dig(bind.dnsPort, last, 'A')) === '', 900_000, 'the big zone gone', 100);
      console.log(`round ${round + 1}: PUT /zone/<big> answered in ${putSeconds.toFixed(2)} s, the ${records}-record zone served by both after ${published.toFixed(1)} s; samples so far ${small.map((s) => `${s.kind} ${s.latencies.length}`).join(', ')}`);
    }
    stalls.disable();

    // A change of one record inside the big zone (the issue's "+1 record"): how long until each nameserver has it.
    await request(base, 'PUT', `/zone/${big.id}`, { cookie, json: { nameservers: [ns1.id, ns2.id] } });
    await until(bigServed, 900_000, 'the big zone on both', 100);
    const bigRecord = (await request(base, 'GET', `/zone/${big.id}/records?search=h0.big.example`, { cookie })).json.zone_record
      .find((r) => r.owner === 'h0.big.example.');
    const inBig = { PowerDNS: [], BIND: [] };
    for (let i = 0; i < bigChanges; i++) {
      const address = `10.200.0.${i + 1}`;
      const start = process.hrtime.bigint();
      await request(base, 'PUT', `/zone_record/${bigRecord.id}`, { cookie, json: { address } });
      await Promise.all([['PowerDNS', pdns.dnsPort], ['BIND', bind.dnsPort]].map(async ([kind, port]) => {
        await until(async () => (await dig(port, 'h0.big.example.', 'A')) === address, 900_000, `${kind} big change ${i}`);
        inBig[kind].push(Number(process.hrtime.bigint() - start) / 1e6);
      }));
    }
    console.log(`event loop of the process (app and bench): delay p99 ${(stalls.percentile(99) / 1e6).toFixed(0)} ms, max ${(stalls.max / 1e6).toFixed(0)} ms`);
    for (const s of small) {
      const quiet = idle.get(s.kind);
      console.log(`${s.kind}: the same change with nothing else publishing, ${quiet.length} changes: p50 ${percentile(quiet, 50).toFixed(1)} ms, p95 ${percentile(quiet, 95).toFixed(1)} ms`);
      const xs = s.latencies;
      const own = inBig[s.kind];
      if (own.length) console.log(`${s.kind}: one record changed in the ${records}-record zone, ${own.length} changes: p50 ${percentile(own, 50).toFixed(1)} ms, max ${Math.max(...own).toFixed(1)} ms`);
      console.log(`${s.kind}: unrelated change to dig answer while the big zone publishes, ${xs.length} changes: p50 ${percentile(xs, 50).toFixed(1)} ms, p95 ${percentile(xs, 95).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`);
    }
  } finally {
    await deps?.publisher?.stop();
    if (server) await close(server);
    await database.destroy();
    pdns.stop();
    bind.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
