#!/usr/bin/env node
// What the custom access token hook costs (issue 29), as ratios against the same build without it, in the same run:
//
//   password grant with the hook over HTTP / without      refresh grant with the hook over HTTP / without
//   password grant with the hook as a PG function / without   refresh grant with the hook as a PG function / without
//
// Three app instances share one database and pool: no hook, an HTTP hook (a receiver in this process that checks
// nothing and adds one claim: the cost is the signing, the round trip and the parse), and a PostgreSQL function
// hook (adds one claim with jsonb_set). Rounds alternate the order; each ratio is the median of per-round ratios.
// The password grant runs a fixed number of grants to completion (bcrypt dominates it); the refresh grant runs
// BENCH_SECONDS per side from fresh sessions.
//
//   pnpm build, then: node bench/auth-hooks.js     (BENCH_SECONDS=3, BENCH_ROUNDS=3, BENCH_PASSWORD_OPS=100)
'use strict';

const { createServer } = require('node:http');
const { createRequire } = require('node:module');
const { randomBytes } = require('node:crypto');
const { loadAuthConfig } = require('@keyzone/config');
const { connect, migrateAuth } = require('@keyzone/db');
const { insertRefreshChains, median, refreshRequests, run: runOnce, runStatement } = require('./support');

const fromAuth = createRequire(require.resolve('@keyzone/auth-server/package.json'));
const { createJwtService } = fromAuth('@keyzone/tokens');
const pino = fromAuth('pino');
const { createApp } = require('@keyzone/auth-server/dist/app');
const { systemClock } = require('@keyzone/auth-server/dist/clock');

const BASE_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.BENCH_SECONDS || 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const PASSWORD_OPS = Number(process.env.BENCH_PASSWORD_OPS || 100);
const CONNECTIONS = 50;
const PASSWORD = 'bench-password-1';
const SECRET = `v1,whsec_${randomBytes(32).toString('base64')}`;

const run = (name, options) => runOnce(name, { connections: CONNECTIONS, duration: SECONDS, ...options });
const listen = (app) => new Promise((resolve) => { const s = app.listen(0, '127.0.0.1', () => resolve(s)); });

/** The HTTP hook: answers the claims with one more, as a tenant-id hook would. */
async function startReceiver() {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const { claims } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ claims: { ...claims, tenant_id: 'acme' } }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function main() {
  const dbName = `kz_bench_hooks_${randomBytes(4).toString('hex')}`;
  await runStatement(BASE_URL, `CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(BASE_URL);
  dbUrl.pathname = `/${dbName}`;
  const url = dbUrl.toString();
  const db = connect(url, { maxPoolSize: 20 });
  const servers = [];
  try {
    await migrateAuth(db);
    await runStatement(url, `create schema hooks;
      create function hooks.claims(event jsonb) returns jsonb language sql immutable as
      $$ select jsonb_build_object('claims', jsonb_set(event->'claims', '{tenant_id}', '"acme"')) $$`);
    const receiver = await startReceiver();
    servers.push(receiver);
    const secret = randomBytes(32).toString('hex');
    const baseEnv = {
      AUTH_SITE_URL: 'http://localhost:3000', AUTH_API_EXTERNAL_URL: 'http://localhost:9999', AUTH_DATABASE_URL: url,
      AUTH_JWT_SECRET: secret, AUTH_MAILER_AUTOCONFIRM: 'true', AUTH_BCRYPT_COST: '10', AUTH_LOG_LEVEL: 'error',
      AUTH_RATE_LIMIT_TOKEN_REFRESH: '100000000',
    };
    const hookEnv = (uri) => ({ AUTH_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED: 'true', AUTH_HOOK_CUSTOM_ACCESS_TOKEN_URI: uri, AUTH_HOOK_CUSTOM_ACCESS_TOKEN_SECRETS: SECRET });
    const variants = {
      none: {},
      http: hookEnv(`http://127.0.0.1:${receiver.address().port}/claims`),
      pg: hookEnv('pg-functions://postgres/hooks/claims'),
    };
    const jwt = await createJwtService({ secret, clock: systemClock.now });
    const log = pino({ level: 'silent' });
    const urls = {};
    for (const [name, env] of Object.entries(variants)) {
      const config = loadAuthConfig({ cwd: __dirname, env: { ...baseEnv, ...env } });
      const server = await listen(createApp({ config, db, jwt, mailer: undefined, sms: undefined, clock: systemClock, log }));
      servers.push(server);
      urls[name] = `http://127.0.0.1:${server.address().port}`;
    }

    const signup = await fetch(`${urls.none}/signup`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@example.com', password: PASSWORD }),
    });
    const { user } = await signup.json();
    const check = await fetch(`${urls.http}/token?grant_type=password`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@example.com', password: PASSWORD }),
    });
    if (check.status !== 200) throw new Error(`the hooked password grant failed: ${check.status} ${await check.text()}`);

    const password = (name) => run(`password grant, ${name}`, {
      amount: Math.max(PASSWORD_OPS, CONNECTIONS), url: `${urls[name]}/token?grant_type=password`, method: 'POST',
      headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'bench@example.com', password: PASSWORD }),
    });
    const failures = [];
    const refresh = async (name) => run(`refresh grant, ${name}`, {
      url: `${urls[name]}/token?grant_type=refresh_token`, requests: refreshRequests(await insertRefreshChains(url, user.id, CONNECTIONS), failures),
    });

    console.log(`auth hooks bench: ${CONNECTIONS} connections, ${SECONDS} s per refresh run, ${PASSWORD_OPS} password grants per run, PostgreSQL ${dbName}`);
    console.log('warm-up:');
    for (const name of Object.keys(variants)) { await refresh(name); await password(name); }
    console.log('measured:');
    const runs = { password: { none: [], http: [], pg: [] }, refresh: { none: [], http: [], pg: [] } };
    const order = ['none', 'http', 'pg'];
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of round % 2 === 0 ? order : [...order].reverse()) {
        runs.refresh[name].push(await refresh(name));
        runs.password[name].push(await password(name));
      }
    }
    const ratio = (kind, name) => median(runs[kind][name].map((r, i) => r.rps / runs[kind].none[i].rps));
    console.log('ratios with the hook / without (median of the rounds):');
    for (const kind of ['password', 'refresh']) {
      for (const name of ['http', 'pg']) console.log(`  ${`${kind} grant, ${name} hook`.padEnd(30)} ${ratio(kind, name).toFixed(2)}`);
    }
    const bad = Object.values(runs).flatMap((byName) => Object.values(byName).flat()).reduce((n, r) => n + r.bad, 0);
    console.log(`  ${'non-2xx + errors, all runs'.padEnd(30)} ${bad}${failures[0] ? `  (first refresh failure: ${failures[0]})` : ''}`);
    process.exitCode = bad === 0 ? 0 : 1;
  } finally {
    for (const server of servers) {
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
    }
    await db.destroy();
    await runStatement(BASE_URL, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
