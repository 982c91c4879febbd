#!/usr/bin/env node
// DNS API memory while importing a large zone (issue 27): the built server (`node dist/main.js`, production) runs
// as its own process on a fresh PostgreSQL database; one user imports a zone file of --records A/TXT/MX records
// (default 373,000: ~9.9 MB, under the 10 MB http.zone_file_limit) as text/dns. Reports the import's time, the
// server's RSS idle and at its peak (VmRSS every 50 ms), and the slowest /health answer while the import runs
// (polled one after the other): the event loop must stay responsive. Goal: peak RSS under 300 MB.
//
//   pnpm build, then: node bench/dns-import-memory.js [--records 373000]
'use strict';

const { spawn, execFileSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const { cpSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { freePort, rssMb, runStatement, waitForHealth } = require('./support');

const SERVER_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const APP_DIR = path.dirname(require.resolve('@keyzone/dns-session-api/package.json'));
const MAIN = path.join(APP_DIR, 'dist', 'main.js');
const PASSWORD = 'Bench#Passw0rd-123';
const GOAL_MB = 300;

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};

function zoneFile(records) {
  const lines = ['$TTL 3600', '@ SOA ns1.example.net. hostmaster.big.example. 1 86400 7200 1209600 3600', '@ NS ns1.example.net.'];
  for (let i = 0; lines.length < records + 3; i++) {
    lines.push(`h${i} A 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    if (i % 10 === 0) lines.push(`t${i} TXT "v=spf1 include:_spf.example.net ~all"`);
    if (i % 25 === 0) lines.push(`m${i} MX 10 mail${i}.example.net.`);
  }
  return `${lines.join('\n')}\n`;
}

async function main() {
  const records = arg('records', 373000);
  const name = `kz_bench_import_${randomBytes(4).toString('hex')}`;
  await runStatement(SERVER_URL, `create database ${name}`);
  const dbUrl = new URL(SERVER_URL);
  dbUrl.pathname = `/${name}`;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // The shipped settings, with the records-per-zone quota (100,000 by default) lifted for this zone.
  const configDir = mkdtempSync(path.join(os.tmpdir(), 'kz-bench-import-'));
  cpSync(path.join(APP_DIR, 'config'), configDir, { recursive: true });
  writeFileSync(path.join(configDir, 'quotas.yml'), 'default:\n  records_per_zone: 0\n');
  const env = {
    DNS_CONFIG_DIR: configDir, PATH: process.env.PATH, NODE_ENV: 'production', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: dbUrl.toString(),
    SESSION_SECRET: randomBytes(24).toString('hex'), LOG_LEVEL: 'warn',
  };
  execFileSync(process.execPath, [MAIN, 'migrate'], { env, stdio: 'inherit' });
  execFileSync(process.execPath, [MAIN, 'create-user', '--group', 'Bench', '--username', 'bench', '--password', PASSWORD,
    '--email', 'bench@example.com', '--first-name', 'Bench', '--last-name', 'User', '--admin'], { env, stdio: 'ignore' });
  const child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), MAIN], { stdio: ['ignore', 'ignore', 'inherit'], env });
  try {
    await waitForHealth(url, child);
    const login = await fetch(`${url}/session`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench@Bench', password: PASSWORD }),
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    const text = zoneFile(records);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idle = rssMb(child.pid);
    let peak = idle;
    const sampler = setInterval(() => { peak = Math.max(peak, rssMb(child.pid)); }, 50);
    let importing = true;
    let slowestHealth = 0;
    const probing = (async () => {
      while (importing) {
        const started = process.hrtime.bigint();
        await fetch(`${url}/health`).then((r) => r.arrayBuffer(), () => undefined);
        slowestHealth = Math.max(slowestHealth, Number(process.hrtime.bigint() - started) / 1e6);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const started = Date.now();
    const response = await fetch(`${url}/zone/import?zone=big.example.`, { method: 'POST', headers: { cookie, 'content-type': 'text/dns' }, body: text });
    const body = await response.json();
    const seconds = (Date.now() - started) / 1000;
    importing = false;
    await probing;
    clearInterval(sampler);
    if (response.status !== 201) throw new Error(`import answered ${response.status}: ${JSON.stringify(body).slice(0, 500)}`);
    console.log(`import of ${body.records} records (${(Buffer.byteLength(text) / 1e6).toFixed(1)} MB): ${seconds.toFixed(1)} s; ` +
      `RSS idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB (goal < ${GOAL_MB} MB); slowest /health during it ${slowestHealth.toFixed(0)} ms`);
    if (peak >= GOAL_MB) process.exitCode = 1;
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await runStatement(SERVER_URL, `drop database if exists ${name} with (force)`);
    rmSync(configDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
