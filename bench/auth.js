#!/usr/bin/env node
// Auth-server throughput, as ratios against baselines measured in the same run on the same
// machine (absolute req/s mean little on a shared box):
//
//   GET /user        vs a bare Express handler running the same single-row user query on the same pool   goal >= 0.8
//   password grant   vs raw bcrypt.compare throughput (same cost, same cores, same concurrency)            goal >= 0.9
//   refresh grant    vs GET /user                                                                        goal >= 0.35
//   every run: zero non-2xx responses and zero errors under 50 connections
//
//   pnpm bench:auth                 (needs PostgreSQL at BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres,
//                                    and built packages: pnpm build)
//   BENCH_SECONDS=5 pnpm bench:auth (seconds per measurement, default 3)
//
// A fresh database kz_bench_auth_<random> is created, migrated, used and dropped. bcrypt runs at
// the production cost 10. Servers listen on 127.0.0.1; autocannon runs in this process, so every
// measurement pays the same client overhead.
'use strict';

const { createRequire } = require('node:module');
const { randomBytes } = require('node:crypto');
const autocannon = require('autocannon');
const bcrypt = require('bcrypt');
const express = require('express');
const { Client } = require('pg');

// The auth server's own dependencies, resolved from its package (no copies in bench/).
const fromAuth = createRequire(require.resolve('@keyzone/auth-server/package.json'));
const { createApp } = require('@keyzone/auth-server/dist/app');
const { userColumns } = require('@keyzone/auth-server/dist/queries/columns');
const { systemClock } = require('@keyzone/auth-server/dist/deps');
const { loadAuthConfig } = require('@keyzone/config');
const { connect, migrateAuth } = require('@keyzone/db');
const { createJwtService } = fromAuth('@keyzone/tokens');
const pino = fromAuth('pino');

const BASE_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.BENCH_SECONDS || 3);
const CONNECTIONS = 50;
const BCRYPT_COST = 10;
const PASSWORD = 'bench-password-1';

function withDatabase(url, name) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin(sql) {
  const client = new Client({ connectionString: BASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

function listen(app) {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}

function run(name, options) {
  return new Promise((resolve, reject) => {
    autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options }, (err, result) => {
      if (err) reject(err);
      else {
        const bad = result.non2xx + result.errors + result.timeouts;
        console.log(
          `  ${name.padEnd(34)} ${result.requests.average.toFixed(0).padStart(7)} req/s` +
            `  p50 ${String(result.latency.p50).padStart(4)} ms  p99 ${String(result.latency.p99).padStart(4)} ms` +
            `  non-2xx ${result.non2xx}  errors ${result.errors + result.timeouts}`,
        );
        resolve({ rps: result.requests.average, bad });
      }
    });
  });
}

/** bcrypt.compare throughput with CONNECTIONS comparisons in flight, for SECONDS. */
async function bcryptBaseline(hash) {
  let done = 0;
  const until = Date.now() + SECONDS * 1000;
  const worker = async () => {
    while (Date.now() < until) {
      if (!(await bcrypt.compare(PASSWORD, hash))) throw new Error('bcrypt baseline mismatch');
      done += 1;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const rps = done / ((Date.now() - started) / 1000);
  console.log(`  ${'raw bcrypt.compare (cost 10)'.padEnd(34)} ${rps.toFixed(0).padStart(7)} ops/s`);
  return rps;
}

async function main() {
  const dbName = `kz_bench_auth_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE ${dbName}`);
  const url = withDatabase(BASE_URL, dbName);
  const db = connect(url, { maxPoolSize: 20 });
  const servers = [];
  try {
    await migrateAuth(db);
    const config = loadAuthConfig({
      cwd: __dirname,
      env: {
        AUTH_SITE_URL: 'http://localhost:3000',
        AUTH_API_EXTERNAL_URL: 'http://localhost:9999',
        AUTH_DATABASE_URL: url,
        AUTH_JWT_SECRET: randomBytes(32).toString('hex'),
        AUTH_MAILER_AUTOCONFIRM: 'true',
        AUTH_BCRYPT_COST: String(BCRYPT_COST),
        AUTH_LOG_LEVEL: 'error',
      },
    });
    const jwt = await createJwtService({ secret: config.jwt.secret, clock: systemClock.now });
    const log = pino({ level: 'silent' });
    const deps = { config, db, jwt, mailer: undefined, sms: undefined, clock: systemClock, log };
    const authServer = await listen(createApp(deps));
    servers.push(authServer);
    const authUrl = `http://127.0.0.1:${authServer.address().port}`;

    // Baseline: the same single-row user query on the same pool, behind a bare Express handler.
    const bare = express();
    bare.get('/user/:id', async (req, res) => {
      const user = await db.selectFrom('auth.users').select(userColumns).where('id', '=', req.params.id).executeTakeFirst();
      res.json(user);
    });
    const bareServer = await listen(bare);
    servers.push(bareServer);
    const bareUrl = `http://127.0.0.1:${bareServer.address().port}`;

    // One user for the reads and the password grant; one session per connection for refreshes.
    const signup = await fetch(`${authUrl}/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', password: PASSWORD }),
    });
    const session = await signup.json();
    if (signup.status !== 200) throw new Error(`signup failed: ${JSON.stringify(session)}`);
    const hash = (await db.selectFrom('auth.users').select('encrypted_password').where('id', '=', session.user.id).executeTakeFirst()).encrypted_password;
    const refreshTokens = [];
    for (let i = 0; i < CONNECTIONS; i++) {
      const res = await fetch(`${authUrl}/token?grant_type=password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'bench@example.com', password: PASSWORD }),
      });
      refreshTokens.push((await res.json()).refresh_token);
    }

    console.log(`auth-server bench: ${CONNECTIONS} connections, ${SECONDS} s per run, bcrypt cost ${BCRYPT_COST}, PostgreSQL ${dbName}`);
    const results = {};
    results.bare = await run('bare Express + user query', { url: `${bareUrl}/user/${session.user.id}` });
    results.getUser = await run('GET /user', { url: `${authUrl}/user`, headers: { authorization: `Bearer ${session.access_token}` } });

    // Each connection rotates its own session: the token from the previous response is the next one sent.
    let next = 0;
    results.refresh = await run('POST /token grant_type=refresh_token', {
      url: `${authUrl}/token?grant_type=refresh_token`,
      requests: [
        {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          setupRequest: (req, context) => {
            if (!context.token) context.token = refreshTokens[next++ % refreshTokens.length];
            return { ...req, body: JSON.stringify({ refresh_token: context.token }) };
          },
          onResponse: (status, body, context) => {
            if (status === 200) context.token = JSON.parse(body).refresh_token;
          },
        },
      ],
    });

    const bcryptRps = await bcryptBaseline(hash);
    results.password = await run('POST /token grant_type=password', {
      url: `${authUrl}/token?grant_type=password`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', password: PASSWORD }),
    });

    const ratios = [
      ['GET /user / bare Express query', results.getUser.rps / results.bare.rps, 0.8],
      ['password grant / bcrypt.compare', results.password.rps / bcryptRps, 0.9],
      ['refresh grant / GET /user', results.refresh.rps / results.getUser.rps, 0.35],
    ];
    console.log('\nratios (goal in brackets):');
    let ok = true;
    for (const [name, ratio, goal] of ratios) {
      const pass = ratio >= goal;
      ok &&= pass;
      console.log(`  ${name.padEnd(34)} ${ratio.toFixed(2)}  [>= ${goal}]  ${pass ? 'ok' : 'BELOW GOAL'}`);
    }
    const bad = Object.values(results).reduce((n, r) => n + r.bad, 0);
    console.log(`  ${'non-2xx + errors, all runs'.padEnd(34)} ${bad}  [= 0]  ${bad === 0 ? 'ok' : 'FAILED'}`);
    process.exitCode = ok && bad === 0 ? 0 : 1;
  } finally {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await db.destroy();
    await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
