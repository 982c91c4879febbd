#!/usr/bin/env node
// Auth-server throughput, as ratios against baselines measured in the same run on the same
// machine (absolute req/s mean little on a shared box):
//
//   GET /user        vs a bare Express handler running the same single-row user query on the same pool   goal >= 0.8
//                    (also printed, for information: vs the same handler with the SQL compiled once)
//   password grant   vs raw bcrypt.compare throughput (same cost, same cores, same concurrency)            goal >= 0.9
//   refresh grant    vs GET /user                                                                        goal >= 0.35
//   every run: zero non-2xx responses and zero errors under 50 connections
//   (info) GET /user and the refresh grant with named statements off (AUTH_DB_PREPARED_STATEMENTS=false, as behind a
//          transaction-mode pooler) vs the same with them on: a second app instance on its own pool, same rounds
//
//   pnpm bench:auth                 (needs PostgreSQL at BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres,
//                                    and built packages: pnpm build)
//   BENCH_SECONDS=5 pnpm bench:auth (seconds per autocannon run, default 3)
//   BENCH_BCRYPT_OPS=120            (password grants / compares counted for the bcrypt ratio, default 100)
//   BENCH_ROUNDS=5                  (alternating rounds of the read/refresh runs, default 3)
//   BENCH_BCRYPT_ROUNDS=5           (alternating rounds of the bcrypt pair, default 3)
//
// Every ratio is the MEDIAN of per-round ratios, each round measuring both sides back to back (the order
// flips every round), after a warm-up of every endpoint: on a shared machine a burst of load from other
// processes then moves both sides of one round rather than deciding a ratio on its own. (Best-of, used
// before, let one lucky run of either side decide the ratio.)
//
// bcrypt at cost 10 manages only tens of operations per second on a small machine, so a timed run
// would mostly count requests still in flight when the clock stops. The password grant and its
// bcrypt baseline therefore both run a fixed number of operations (same concurrency) to completion
// and are compared by elapsed time.
//
// A fresh database kz_bench_auth_<random> is created, migrated, used and dropped. bcrypt runs at
// the production cost 10. Servers listen on 127.0.0.1; autocannon runs in this process, so every
// measurement pays the same client overhead.
'use strict';

const { createRequire } = require('node:module');
const { randomBytes } = require('node:crypto');
const bcrypt = require('bcrypt');
const express = require('express');
const { insertRefreshChains, median, refreshRequests, run: runOnce, runStatement } = require('./support');

// The auth server's own dependencies, resolved from its package (no copies in bench/).
const fromAuth = createRequire(require.resolve('@keyzone/auth-server/package.json'));
const { createApp } = require('@keyzone/auth-server/dist/app');
const { userColumns } = require('@keyzone/auth-server/dist/queries/columns');
const { systemClock } = require('@keyzone/auth-server/dist/clock');
const { loadAuthConfig } = require('@keyzone/config');
const { connect, migrateAuth } = require('@keyzone/db');
const { createJwtService } = fromAuth('@keyzone/tokens');
const pino = fromAuth('pino');

const BASE_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.BENCH_SECONDS || 3);
const CONNECTIONS = 50;
const BCRYPT_COST = 10;
const BCRYPT_OPS = Number(process.env.BENCH_BCRYPT_OPS || 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const BCRYPT_ROUNDS = Number(process.env.BENCH_BCRYPT_ROUNDS || 3);
const PASSWORD = 'bench-password-1';

function withDatabase(url, name) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

function listen(app) {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}

const run = (name, options) => runOnce(name, { connections: CONNECTIONS, duration: SECONDS, ...options });

/** bcrypt.compare throughput: BCRYPT_OPS comparisons, CONNECTIONS in flight, run to completion. */
async function bcryptBaseline(hash) {
  const total = Math.max(BCRYPT_OPS, CONNECTIONS);
  let started = 0;
  const worker = async () => {
    while (started < total) {
      started += 1;
      if (!(await bcrypt.compare(PASSWORD, hash))) throw new Error('bcrypt baseline mismatch');
    }
  };
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const rps = total / (Number(process.hrtime.bigint() - t0) / 1e9);
  console.log(`  ${'raw bcrypt.compare (cost 10)'.padEnd(34)} ${rps.toFixed(0).padStart(7)} ops/s`);
  return rps;
}

async function main() {
  const dbName = `kz_bench_auth_${randomBytes(4).toString('hex')}`;
  await runStatement(BASE_URL, `CREATE DATABASE ${dbName}`);
  const url = withDatabase(BASE_URL, dbName);
  const db = connect(url, { maxPoolSize: 20 });
  const unnamedDb = connect(url, { maxPoolSize: 20, preparedStatements: false });
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
        // The request limits are checked on every /token call (a statement in PostgreSQL) but never reached:
        // the benchmark measures what a limit costs, not its refusals.
        AUTH_RATE_LIMIT_TOKEN_REFRESH: '100000000',
      },
    });
    const jwt = await createJwtService({ secret: config.jwt.secret, clock: systemClock.now });
    const log = pino({ level: 'silent' });
    const deps = { config, db, jwt, mailer: undefined, sms: undefined, clock: systemClock, log };
    const authServer = await listen(createApp(deps));
    servers.push(authServer);
    const authUrl = `http://127.0.0.1:${authServer.address().port}`;
    const unnamedServer = await listen(createApp({ ...deps, db: unnamedDb }));
    servers.push(unnamedServer);
    const unnamedUrl = `http://127.0.0.1:${unnamedServer.address().port}`;

    // Baseline: the same single-row user query on the same pool, behind a bare Express handler,
    // written as such a handler naturally is (query builder per request): the goal line.
    // Also shown, for information: the same handler with the SQL compiled once, the leanest way
    // through Kysely (the auth server compiles its hot-path reads once, see queries/prepared.ts).
    const bare = express();
    bare.get('/user/:id', async (req, res) => {
      res.json(await db.selectFrom('auth.users').select(userColumns).where('id', '=', req.params.id).executeTakeFirst());
    });
    const compiled = db.selectFrom('auth.users').select(userColumns).where('id', '=', '00000000-0000-0000-0000-000000000000').compile();
    bare.get('/precompiled/:id', async (req, res) => {
      const { rows } = await db.executeQuery({ ...compiled, parameters: [req.params.id] });
      res.json(rows[0]);
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
    // Fresh sessions for each refresh run: a run that ends cuts off requests in flight, whose rotation the client
    // never sees; starting each run from new sessions keeps that from turning into token reuse.
    const freshRefreshTokens = () => insertRefreshChains(url, session.user.id, CONNECTIONS);

    console.log(`auth-server bench: ${CONNECTIONS} connections, ${SECONDS} s per run, bcrypt cost ${BCRYPT_COST}, PostgreSQL ${dbName}`);
    const refreshRun = async (base = authUrl, label = 'POST /token grant_type=refresh_token') => {
      const failures = [];
      const result = await run(label, { url: `${base}/token?grant_type=refresh_token`, requests: refreshRequests(await freshRefreshTokens(), failures) });
      const firstFailure = failures[0];
      if (firstFailure) console.log(`    first refresh failure: ${firstFailure}`);
      return result;
    };
    const measure = {
      bare: () => run('bare Express + user query', { url: `${bareUrl}/user/${session.user.id}` }),
      precompiled: () => run('bare Express + precompiled query', { url: `${bareUrl}/precompiled/${session.user.id}` }),
      getUser: () => run('GET /user', { url: `${authUrl}/user`, headers: { authorization: `Bearer ${session.access_token}` } }),
      refresh: () => refreshRun(),
      getUserUnnamed: () => run('GET /user, named statements off', { url: `${unnamedUrl}/user`, headers: { authorization: `Bearer ${session.access_token}` } }),
      refreshUnnamed: () => refreshRun(unnamedUrl, 'refresh grant, named statements off'),
    };
    const passwordGrant = (amount) =>
      run('POST /token grant_type=password', {
        amount,
        url: `${authUrl}/token?grant_type=password`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'bench@example.com', password: PASSWORD }),
      });

    // Warm-up (JIT, pool connections, PostgreSQL caches), not counted: the first measured side is not the coldest.
    console.log('warm-up:');
    for (const warm of Object.values(measure)) await warm();
    await passwordGrant(CONNECTIONS);
    console.log('measured:');

    // Reads and refreshes: every round runs all four back to back, in an order that flips each round.
    const order = ['bare', 'precompiled', 'getUser', 'refresh', 'getUserUnnamed', 'refreshUnnamed'];
    const runs = Object.fromEntries(order.map((name) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of round % 2 === 0 ? order : [...order].reverse()) runs[name].push(await measure[name]());
    }
    const perRound = (a, b) => runs[a].map((r, i) => r.rps / runs[b][i].rps);

    // The bcrypt pair alternates too (which side goes first flips each round).
    const bcryptRuns = [];
    const passwordRuns = [];
    for (let round = 0; round < BCRYPT_ROUNDS; round++) {
      if (round % 2 === 0) {
        bcryptRuns.push(await bcryptBaseline(hash));
        passwordRuns.push(await passwordGrant(Math.max(BCRYPT_OPS, CONNECTIONS)));
      } else {
        passwordRuns.push(await passwordGrant(Math.max(BCRYPT_OPS, CONNECTIONS)));
        bcryptRuns.push(await bcryptBaseline(hash));
      }
    }
    const rounds = {
      getUser: perRound('getUser', 'bare'),
      password: passwordRuns.map((r, i) => r.rps / bcryptRuns[i]),
      refresh: perRound('refresh', 'getUser'),
      precompiled: perRound('getUser', 'precompiled'),
      getUserUnnamed: perRound('getUserUnnamed', 'getUser'),
      refreshUnnamed: perRound('refreshUnnamed', 'refresh'),
    };
    const bads = [...Object.values(runs).flat(), ...passwordRuns].reduce((n, r) => n + r.bad, 0);
    const rps = (list) => median(list.map((r) => r.rps)).toFixed(0);
    console.log(
      `\nmedian req/s: bare ${rps(runs.bare)}, precompiled ${rps(runs.precompiled)}, GET /user ${rps(runs.getUser)}, ` +
        `refresh ${rps(runs.refresh)}, password grant ${rps(passwordRuns)}, bcrypt.compare ${median(bcryptRuns).toFixed(1)} ops/s`,
    );

    const ratios = [
      ['GET /user / bare Express query', rounds.getUser, 0.8],
      ['password grant / bcrypt.compare', rounds.password, 0.9],
      ['refresh grant / GET /user', rounds.refresh, 0.35],
    ];
    console.log('ratios, median of the rounds (goal in brackets) [every round]:');
    let ok = true;
    const list = (values) => values.map((v) => v.toFixed(2)).join(', ');
    for (const [name, values, goal] of ratios) {
      const ratio = median(values);
      const pass = ratio >= goal;
      ok &&= pass;
      console.log(`  ${name.padEnd(34)} ${ratio.toFixed(2)}  [>= ${goal}]  ${pass ? 'ok' : 'BELOW GOAL'}  [${list(values)}]`);
    }
    console.log(`  ${'(info) GET /user / precompiled'.padEnd(34)} ${median(rounds.precompiled).toFixed(2)}  [${list(rounds.precompiled)}]`);
    console.log(`  ${'(info) GET /user unnamed / named'.padEnd(34)} ${median(rounds.getUserUnnamed).toFixed(2)}  [${list(rounds.getUserUnnamed)}]`);
    console.log(`  ${'(info) refresh unnamed / named'.padEnd(34)} ${median(rounds.refreshUnnamed).toFixed(2)}  [${list(rounds.refreshUnnamed)}]`);
    const bad = bads;
    console.log(`  ${'non-2xx + errors, all runs'.padEnd(34)} ${bad}  [= 0]  ${bad === 0 ? 'ok' : 'FAILED'}`);
    process.exitCode = ok && bad === 0 ? 0 : 1;
  } finally {
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await db.destroy();
    await unnamedDb.destroy();
    await runStatement(BASE_URL, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
