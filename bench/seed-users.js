#!/usr/bin/env node
// Seeds N users (with their email identity) into a real PostgreSQL database, fast.
//
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/kz_bench_users node seed-users.js 1000000 [--audit 1000000]
//
// --audit M also adds M audit log entries (for `admin-list.js --audit`).
//
// The database named by BENCH_DATABASE_URL is created when missing and migrated with
// @keyzone/db's migrateAuth (run `pnpm --filter @keyzone/db build` first). Existing users are kept;
// new ones continue the numbering (first.last<i>@<domain>).
//
// Why multi-row INSERT … SELECT generate_series and not COPY: the rows are generated inside the
// server, so nothing crosses the wire but the statement; with one precomputed bcrypt hash (what a
// password would cost is not what we measure here) this is as fast as COPY and needs no extra
// dependency. Each batch is its own transaction so progress survives an interrupt.
'use strict';

const { URL } = require('node:url');
const { Client } = require('pg');
const bcrypt = require('bcrypt');

const DEFAULT_URL = 'postgres://postgres@127.0.0.1:5432/kz_bench_users';
const BATCH = 50_000;

// Names and domains picked by index so that a filter like "maria" or "okafor" matches a realistic
// slice (a few percent) and an email shares its domain with many others, as real addresses do. (An
// earlier "user<i>@bench.example" scheme made every address share a dozen trigrams, which no real
// user table does, and turned every email filter into a scan of huge trigram posting lists.)
const FIRST = ['Ada', 'Alan', 'Grace', 'Linus', 'Maria', 'Chen', 'Aisha', 'Olu', 'Sven', 'Priya', 'Jorge', 'Yuki',
  'Fatima', 'Ivan', 'Noor', 'Lena', 'Tomas', 'Amara', 'Kenji', 'Zofia', 'Diego', 'Hana', 'Omar', 'Ingrid'];
const LAST = ['Lovelace', 'Turing', 'Hopper', 'Torvalds', 'Garcia', 'Wang', 'Khan', 'Okafor', 'Larsen', 'Patel',
  'Silva', 'Tanaka', 'Haddad', 'Petrov', 'Rahman', 'Fischer', 'Novak', 'Mensah', 'Sato', 'Kowalski', 'Rossi',
  'Kim', 'Nasser', 'Berg', 'Moreau', 'Dubois', 'Nguyen', 'Ahmed', 'Costa', 'Murphy', 'Schmidt'];
const DOMAINS = ['gmail.com', 'outlook.com', 'yahoo.com', 'proton.me', 'fastmail.com', 'icloud.com', 'gmx.de',
  'example.org', 'acme.io', 'uni-example.edu'];

function databaseName(url) {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
}

async function ensureDatabase(url) {
  const name = databaseName(url);
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`refusing odd database name ${JSON.stringify(name)}`);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount === 0) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}

async function migrate(url) {
  const { connect, migrateAuth } = require('@keyzone/db');
  const db = connect(url);
  try {
    await migrateAuth(db);
  } finally {
    await db.destroy();
  }
}

const sqlArray = (items) => `ARRAY[${items.map((s) => `'${s}'`).join(',')}]`;

// One statement inserts a batch of users and their email identities (a data-modifying CTE, so
// the identity rows reuse the generated ids without a second pass over the table).
function batchSql() {
  const first = `(${sqlArray(FIRST)})[(1 + g % ${FIRST.length})::int]`;
  const last = `(${sqlArray(LAST)})[(1 + (g / ${FIRST.length}) % ${LAST.length})::int]`;
  const domain = `(${sqlArray(DOMAINS)})[(1 + (g / 7) % ${DOMAINS.length})::int]`;
  return `
WITH new_users AS (
  INSERT INTO auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
    raw_app_meta_data, raw_user_meta_data, created_at, updated_at, is_anonymous)
  SELECT '00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated',
         lower(${first} || '.' || ${last}) || g || '@' || ${domain}, $3, ts,
         '{"provider":"email","providers":["email"]}'::jsonb,
         jsonb_build_object('full_name', ${first} || ' ' || ${last}),
         ts, ts, false
  FROM generate_series($1::bigint, $2::bigint) AS g,
       LATERAL (SELECT timestamptz '2020-01-01' + g * interval '1 minute') AS t(ts)
  RETURNING id, email, created_at
)
INSERT INTO auth.identities (id, provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
SELECT gen_random_uuid(), id::text, id,
       jsonb_build_object('sub', id::text, 'email', email, 'email_verified', false, 'phone_verified', false),
       'email', created_at, created_at, created_at
FROM new_users`;
}

// Audit entries as the server writes them (GoTrue's payload), newest every 3 seconds back from 2026, from 20,000
// actors (each ~1 in 20,000 of the log: the trail of one user is a rare filter, the worst case of a keyset walk) and
// four actions (each ~25 %).
function auditBatchSql() {
  const action = `(${sqlArray(['login', 'token_refreshed', 'user_modified', 'logout'])})[(1 + g % 4)::int]`;
  return `
INSERT INTO auth.audit_log_entries (instance_id, id, payload, created_at, ip_address)
SELECT '00000000-0000-0000-0000-000000000000', gen_random_uuid(),
       json_build_object('actor_id', md5('actor' || (g % 20000))::uuid, 'actor_username', 'actor' || (g % 20000) || '@bench.example',
                         'action', ${action}, 'log_type', 'account', 'traits', json_build_object('provider', 'email')),
       timestamptz '2026-01-01' - g * interval '3 seconds', '127.0.0.1'
FROM generate_series($1::bigint, $2::bigint) AS g`;
}

async function seedAudit(client, n) {
  const { rows } = await client.query('SELECT count(*)::bigint AS n FROM auth.audit_log_entries');
  const start = Number(rows[0].n) + 1;
  const t0 = Date.now();
  for (let from = start; from < start + n; from += BATCH) {
    await client.query(auditBatchSql(), [from, Math.min(start + n - 1, from + BATCH - 1)]);
    process.stdout.write(`\rseeded ${Math.min(n, from + BATCH - start)}/${n} audit entries`);
  }
  process.stdout.write('\n');
  await client.query('VACUUM (ANALYZE) auth.audit_log_entries');
  console.log(`audit entries done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

async function main() {
  const n = Number(process.argv[2]);
  const auditAt = process.argv.indexOf('--audit');
  const audit = auditAt > 0 ? Number(process.argv[auditAt + 1]) : 0;
  if (!Number.isInteger(n) || n <= 0 || !Number.isInteger(audit) || audit < 0) {
    console.error('usage: node seed-users.js <N> [--audit <M>]   (database: BENCH_DATABASE_URL, default ' + DEFAULT_URL + ')');
    process.exit(2);
  }
  const url = process.env.BENCH_DATABASE_URL || DEFAULT_URL;
  await ensureDatabase(url);
  await migrate(url);

  const hash = await bcrypt.hash('bench-password', 10);
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    // Continue numbering after the users already there, so emails stay unique across runs.
    const { rows } = await client.query('SELECT count(*)::bigint AS n FROM auth.users');
    const start = Number(rows[0].n) + 1;
    const end = start + n - 1;
    const t0 = Date.now();
    for (let from = start; from <= end; from += BATCH) {
      const to = Math.min(end, from + BATCH - 1);
      await client.query(batchSql(), [from, to, hash]);
      const done = to - start + 1;
      const rate = Math.round(done / ((Date.now() - t0) / 1000));
      process.stdout.write(`\rseeded ${done}/${n} users (${rate}/s)`);
    }
    process.stdout.write('\n');
    // Planner statistics and the visibility map: without them the first benchmark runs would
    // measure a cold, unanalysed table (no index-only scans, bad row estimates).
    await client.query('VACUUM (ANALYZE) auth.users');
    await client.query('VACUUM (ANALYZE) auth.identities');
    console.log(`done in ${((Date.now() - t0) / 1000).toFixed(1)} s; users ${start}..${end} in ${databaseName(url)}`);
    if (audit > 0) await seedAudit(client, audit);
  } finally {
    await client.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
