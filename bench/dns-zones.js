#!/usr/bin/env node
// DNS zones at scale, through the real HTTP API on PostgreSQL:
//   1. POST /zone/import (the file as text/dns) of a BIND zone file holding --records records (default 50,000; A, AAAA, CNAME, MX,
//      TXT, SRV): the zone and every record in one transaction. Reported as records/s.
//   2. GET /zone/<id>/export of that zone, --exports times (default 5): the median and best time (goal < 1 s).
//   3. 20 single POST /zone_record into that zone (median latency).
//   During the import, GET /health is polled every 20 ms: the longest wait shows whether parsing gives the
//   event loop back (goal: no request waits more than ~50 ms behind an import). Peak RSS of the process
//   (server and client both run here) is reported after the import.
//   4. POST /zone/import of a file of bad lines just under the 10 MB limit: time, peak RSS, size of the error
//      body (at most 100 listed errors, the rest counted), and the longest /health wait meanwhile.
//   Each export is checked to hold every record; with named-checkzone installed, the last one is checked too.
//
//   pnpm run build                                    (turbo builds the app and the packages it uses)
//   pnpm --filter @keyzone/bench run dns:zones        [--records 50000] [--exports 5]
//   node bench/dns-zones.js --records 200000          (the issue-12 figure: 200,000 records)
//
// A fresh database is created on TEST_DATABASE_URL's server (default postgres://postgres@127.0.0.1:5432/postgres)
// and dropped at the end. Bounded: one import, --exports exports and 20 record creates.
'use strict';

const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { mkdtempSync, writeFileSync, rmSync } = require('node:fs');
const os = require('node:os');

const APP_DIST = path.dirname(require.resolve('@keyzone/dns-session-api/package.json'));
const PASSWORD = 'Bench#Passw0rd-123';
const ZONE = 'bench-zone.example.';

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

/** A zone file of `count` records, deterministic, every line valid and the zone rules kept. */
function zoneFile(count) {
  const lines = ['$TTL 3600', '@ IN SOA ns1.bench-provider.example. hostmaster 2026010100 86400 7200 1209600 3600', '@ NS ns1.bench-provider.example.'];
  for (let i = 0; i < count; i++) {
    const a = `${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    switch (i % 10) {
      case 5: lines.push(`h${i} AAAA 2001:db8::${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}`); break;
      case 6: lines.push(`c${i} CNAME h${i - 6}`); break;
      case 7: lines.push(`h${i - 7} MX 10 mail${i}.example.net.`); break;
      case 8: lines.push(`t${i} 300 TXT "v=spf1 ip4:10.${a} -all" "record ${i}"`); break;
      case 9: lines.push(`_s${i}._tcp SRV 0 5 5060 h${i - 9}`); break;
      default: lines.push(`h${i} A 10.${a}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

async function request(base, method, url, { cookie, json, text } = {}) {
  const headers = {};
  if (cookie) headers.cookie = cookie;
  if (json !== undefined) headers['content-type'] = 'application/json';
  if (text !== undefined) headers['content-type'] = 'text/dns';
  const body = json !== undefined ? JSON.stringify(json) : text;
  const res = await fetch(new URL(url, base), { method, headers, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs `work` while polling GET /health every 20 ms; returns its result and the longest /health wait. */
async function whilePollingHealth(base, work) {
  let done = false;
  let longest = 0;
  const poll = (async () => {
    while (!done) {
      const t0 = process.hrtime.bigint();
      await fetch(new URL('/health', base)).then((r) => r.text());
      longest = Math.max(longest, Number(process.hrtime.bigint() - t0) / 1e6);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    return { result: await work(), longestHealthMs: () => longest };
  } finally {
    done = true;
    await poll;
  }
}

const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

async function main() {
  const count = arg('records', 50000);
  const exportsToRun = arg('exports', 5);
  const { loadDnsConfig } = require('@keyzone/config');
  const { createTestDatabase } = require('@keyzone/db/testing');
  const { createLogger } = require(require.resolve('@keyzone/logging', { paths: [APP_DIST] }));
  const { createApp } = require(path.join(APP_DIST, 'dist/app.js'));
  const { buildDeps } = require(path.join(APP_DIST, 'dist/deps.js'));
  const { listen, urlOf, close } = require(path.join(APP_DIST, 'dist/http/server.js'));
  const { createUserWithGroup } = require(path.join(APP_DIST, 'dist/services/directory/bootstrap.js'));

  const database = await createTestDatabase({ kind: 'postgres', migrate: 'dns' });
  let server;
  try {
    // Production settings; the zone file goes up as text/dns, so the 100 kB JSON body limit stays as shipped.
    const config = loadDnsConfig({
      dir: APP_DIST, nodeEnv: 'production',
      env: { DATABASE_URL: database.url, SESSION_SECRET: 'bench-session-secret-of-at-least-32-chars' },
    });
    const log = createLogger({ name: 'dns-zones-bench', level: 'error' });
    const deps = buildDeps({ config, db: database.db, log });
    await createUserWithGroup(deps, {
      group: 'bench.example', username: 'bench', password: PASSWORD, email: 'bench@example.com',
      firstName: 'Bench', lastName: 'User', isAdmin: false,
    });
    server = await listen(createApp(deps), { host: '127.0.0.1', port: 0, keepAliveTimeoutSeconds: 5 });
    const base = urlOf(server);

    const login = await request(base, 'POST', '/session', { json: { username: 'bench@bench.example', password: PASSWORD } });
    if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.text}`);
    const cookie = login.headers.getSetCookie()[0].split(';')[0];

    const text = zoneFile(count);
    console.log(`zone file: ${count} records, ${(Buffer.byteLength(text) / 1e6).toFixed(1)} MB`);
    let t0 = process.hrtime.bigint();
    const importRun = await whilePollingHealth(base, () => request(base, 'POST', `/zone/import?zone=${ZONE}`, { cookie, text }));
    const imported = importRun.result;
    const importMs = Number(process.hrtime.bigint() - t0) / 1e6;
    if (imported.status !== 201) throw new Error(`import failed: ${imported.status} ${imported.text.slice(0, 500)}`);
    const body = JSON.parse(imported.text);
    if (body.records !== count + 1) throw new Error(`imported ${body.records} records, expected ${count + 1} (with the apex NS)`);
    console.log(`import: ${body.records} records in ${importMs.toFixed(0)} ms = ${Math.round(body.records / (importMs / 1000))} records/s; ` +
      `longest /health wait meanwhile ${importRun.longestHealthMs().toFixed(0)} ms; peak RSS so far ${peakRssMb().toFixed(0)} MB`);

    const times = [];
    let exported = '';
    for (let i = 0; i < exportsToRun; i++) {
      t0 = process.hrtime.bigint();
      const res = await request(base, 'GET', `/zone/${body.zone.id}/export`, { cookie });
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (res.status !== 200) throw new Error(`export failed: ${res.status}`);
      exported = res.text;
      const lines = exported.split('\n').filter((l) => l && !l.startsWith(';') && !l.startsWith('$')).length;
      if (lines !== count + 2) throw new Error(`export has ${lines} record lines, expected ${count + 2} (with SOA and NS)`);
    }
    const med = median(times);
    console.log(`export: ${(Buffer.byteLength(exported) / 1e6).toFixed(1)} MB; median ${med.toFixed(0)} ms, best ${Math.min(...times).toFixed(0)} ms over ${times.length} runs (goal < 1000 ms: ${med < 1000 ? 'met' : 'NOT met'})`);

    // One record at a time into the big zone: each create checks the zone rules against the records near it
    // (not the whole zone) under the zone row lock, and bumps the serial.
    const creates = [];
    for (let i = 0; i < 20; i++) {
      t0 = process.hrtime.bigint();
      const res = await request(base, 'POST', '/zone_record', { cookie, json: { zid: body.zone.id, owner: `new${i}`, type: 'A', address: `192.0.2.${i + 1}` } });
      creates.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (res.status !== 201) throw new Error(`record create failed: ${res.status} ${res.text}`);
    }
    console.log(`POST /zone_record into the ${count}-record zone: median ${median(creates).toFixed(1)} ms over ${creates.length}`);

    // A file of bad lines just under the size limit: the work, memory and answer must stay bounded.
    const badLine = 'bad A 192.0.2.999\n';
    const badText = `$TTL 3600\n@ SOA ns1.bench-provider.example. hostmaster 1 86400 7200 1209600 3600\n${badLine.repeat(Math.floor((config.http.zoneFileLimit - 200) / badLine.length))}`;
    t0 = process.hrtime.bigint();
    const badRun = await whilePollingHealth(base, () => request(base, 'POST', '/zone/import?zone=bad-bench.example.', { cookie, text: badText }));
    const badMs = Number(process.hrtime.bigint() - t0) / 1e6;
    if (badRun.result.status !== 400) throw new Error(`bad import answered ${badRun.result.status}`);
    const badBody = JSON.parse(badRun.result.text);
    console.log(`bad-line import: ${(Buffer.byteLength(badText) / 1e6).toFixed(1)} MB, ${badBody.error_count} bad lines in ${badMs.toFixed(0)} ms; ` +
      `${badBody.errors.length} listed, answer ${(badRun.result.text.length / 1024).toFixed(1)} kB; longest /health wait ${badRun.longestHealthMs().toFixed(0)} ms; ` +
      `peak RSS ${peakRssMb().toFixed(0)} MB`);

    if (spawnSync('named-checkzone', ['-v']).status === 0) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'kz-bench-'));
      try {
        writeFileSync(path.join(dir, 'zone.db'), exported);
        const check = spawnSync('named-checkzone', ['-i', 'local', ZONE, path.join(dir, 'zone.db')], { encoding: 'utf8' });
        console.log(`named-checkzone: ${check.status === 0 ? 'OK' : `FAILED\n${check.stdout}${check.stderr}`}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    if (server) await close(server);
    await database.destroy();
  }
}

module.exports = { zoneFile };

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
