#!/usr/bin/env node
// What the refresh grant's PostgreSQL work costs, part by part (issue 39: the grant runs at ~0.37 of GET /user).
// Each part runs on its own, autocommitted as in the server, from 50 concurrent callers on a pool of 20 (as
// `pnpm bench:auth`), for BENCH_SECONDS (5) after a 1 s warm-up, in BENCH_ROUNDS (3) alternating rounds; the
// median ops/s is printed:
//   statement   the whole fast-path statement (queries/refresh-fast.ts): lock, revoke, mint, session, 2 audit rows, read
//   rotation    its token writes alone: revoke the token and insert the child (one statement)
//   audit       its two audit rows alone (one INSERT)
//   session     its session update alone
//   bucket      the request limit's bucket, one take per request from one client (no lease: the worst case)
//   grant       the whole grant in-process (services/sessions/refresh.ts: the statement and the signed access token), no HTTP
//   limit       the request limit as the route takes it (a lease of the bucket per busy client), no HTTP
//   read        GET /user's user read (for scale)
//
//   node bench/auth-refresh-parts.js   (PostgreSQL at BENCH_DATABASE_URL; built packages: pnpm build)
//   BENCH_SQL='drop index …' node bench/auth-refresh-parts.js   (the same after a schema change)
'use strict';

const { randomBytes } = require('node:crypto');
const path = require('node:path');
const { createRequire } = require('node:module');
const { insertRefreshChains, median, runStatement } = require('./support');

const appRequire = createRequire(require.resolve('@keyzone/auth-server/package.json'));
const { connect, migrateAuth, takeBucketTokens } = appRequire('@keyzone/db');
const { sql } = appRequire('kysely');
const appDist = path.dirname(require.resolve('@keyzone/auth-server/package.json'));
const { tryFastRefresh } = require(path.join(appDist, 'dist', 'queries', 'refresh-fast.js'));
const { refreshGrant } = require(path.join(appDist, 'dist', 'services', 'sessions', 'refresh.js'));
const { takeSharedLimit } = require(path.join(appDist, 'dist', 'services', 'platform', 'shared-rate-limits.js'));
const { loadAuthConfig } = appRequire('@keyzone/config');
const { createJwtService } = appRequire('@keyzone/tokens');

const BASE_URL = process.env.BENCH_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.BENCH_SECONDS || 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const WORKERS = 50;
const newToken = () => randomBytes(9).toString('base64url');

/** ops/s of `op(worker)` run back to back by WORKERS callers for `seconds`. */
async function measure(op, seconds) {
  let count = 0;
  const until = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(Array.from({ length: WORKERS }, async (_, worker) => {
    while (Date.now() < until) {
      await op(worker);
      count += 1;
    }
  }));
  return count / ((Date.now() - started) / 1000);
}

async function main() {
  const dbName = `kz_bench_parts_${randomBytes(4).toString('hex')}`;
  await runStatement(BASE_URL, `create database ${dbName}`);
  const url = new URL(BASE_URL);
  url.pathname = `/${dbName}`;
  const db = connect(url.toString(), { maxPoolSize: 20 });
  try {
    await migrateAuth(db);
    // BENCH_SQL: a statement run after the migrations, to try a schema change (e.g. dropping an index).
    if (process.env.BENCH_SQL) await sql.raw(process.env.BENCH_SQL).execute(db);
    const userId = (await sql`insert into auth.users (id, instance_id, aud, role, email, created_at, updated_at)
      values (gen_random_uuid(), '00000000-0000-0000-0000-000000000000', 'authenticated', 'authenticated', 'parts@bench.test', now(), now())
      returning id`.execute(db)).rows[0].id;
    const tokens = await insertRefreshChains(url.toString(), userId, WORKERS);
    const sessions = (await sql`select session_id from auth.refresh_tokens where token in (${sql.join(tokens)})`.execute(db)).rows.map((r) => r.session_id);
    const live = [...tokens];
    const config = loadAuthConfig({ cwd: __dirname, env: {
      AUTH_SITE_URL: 'http://localhost:3000', AUTH_API_EXTERNAL_URL: 'http://localhost:9999', AUTH_DATABASE_URL: url.toString(),
      AUTH_JWT_SECRET: randomBytes(32).toString('hex'), AUTH_MAILER_AUTOCONFIRM: 'true' } });
    const jwt = await createJwtService({ secret: config.jwt.secret });
    const deps = { db, jwt, config, clock: { now: () => new Date() }, log: { info() {}, warn() {}, error() {}, debug() {} } };
    const grantTokens = await insertRefreshChains(url.toString(), userId, WORKERS);
    const { LeaseBook } = require(path.join(appDist, 'dist', 'services', 'platform', 'shared-rate-limits.js'));
    const book = new LeaseBook();
    const limit = { name: 'token', limit: 1e8, windowSeconds: 300, burst: 1e7 };
    const parts = {
      statement: async (w) => {
        const child = newToken();
        const result = await tryFastRefresh(db, { token: live[w], child, at: new Date(), userAgent: 'bench', ip: '127.0.0.1', auditIp: '127.0.0.1', oauthClientId: null });
        if (!result.refreshed) throw new Error('the fast path refused a live token');
        live[w] = child;
      },
      rotation: async (w) => {
        const child = newToken();
        await sql`with revoked as (update auth.refresh_tokens set revoked = true, updated_at = now() where token = ${live[w]} and revoked = false returning token, user_id, session_id)
          insert into auth.refresh_tokens (instance_id, token, user_id, session_id, parent, revoked, created_at, updated_at)
          select '00000000-0000-0000-0000-000000000000', ${child}, user_id, session_id, token, false, now(), now() from revoked`.execute(db);
        live[w] = child;
      },
      audit: async () => {
        await sql`insert into auth.audit_log_entries (instance_id, id, payload, created_at, ip_address)
          select '00000000-0000-0000-0000-000000000000', gen_random_uuid(),
            json_build_object('actor_id', ${userId}::uuid, 'actor_username', 'parts@bench.test', 'action', a, 'log_type', 'token'), now(), '127.0.0.1'
          from unnest(array['token_revoked', 'token_refreshed']) a`.execute(db);
      },
      session: async (w) => {
        await sql`update auth.sessions set refreshed_at = now(), updated_at = now(), user_agent = 'bench', ip = '127.0.0.1' where id = ${sessions[w]}`.execute(db);
      },
      bucket: async () => {
        await takeBucketTokens(db, 'auth.rate_limit_buckets', { key: 'token:127.0.0.1', ratePerSecond: 1e6, burst: 1e7, now: new Date() }, 1, 0);
      },
      grant: async (w) => {
        const answer = await refreshGrant(deps, { refreshToken: grantTokens[w], client: { ip: '127.0.0.1', userAgent: 'bench', limitKey: '127.0.0.1' } });
        grantTokens[w] = answer.refresh_token;
      },
      limit: async () => {
        await takeSharedLimit(deps, limit, '127.0.0.1', book);
      },
      read: async () => {
        await sql`select * from auth.users where id = ${userId}`.execute(db);
      },
    };
    const results = Object.fromEntries(Object.keys(parts).map((name) => [name, []]));
    for (const op of Object.values(parts)) await measure(op, 1);
    for (let round = 0; round < ROUNDS; round += 1) {
      const names = Object.keys(parts);
      for (const name of round % 2 ? names.reverse() : names) results[name].push(await measure(parts[name], SECONDS));
    }
    console.log(`refresh grant parts: ${WORKERS} callers, pool 20, ${SECONDS} s x ${ROUNDS} rounds, median ops/s [rounds]`);
    for (const [name, runs] of Object.entries(results)) {
      console.log(`  ${name.padEnd(10)} ${Math.round(median(runs)).toString().padStart(6)}  [${runs.map((r) => Math.round(r)).join(', ')}]`);
    }
  } finally {
    await db.destroy();
    await runStatement(BASE_URL, `drop database ${dbName}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
