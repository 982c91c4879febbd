#!/usr/bin/env node
// Latency of GET /admin/users on a big user table, through the real HTTP endpoint.
//
//   pnpm --filter @keyzone/auth-server build
//   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/kz_bench_users node seed-users.js 1000000
//   BENCH_DATABASE_URL=... node admin-list.js [--requests 200] [--audit]
//
// --audit measures GET /admin/audit instead (seed-users.js N --audit M seeds the entries).
//
// Starts apps/auth-server/dist/main.js on a free 127.0.0.1 port against BENCH_DATABASE_URL (or
// uses BENCH_AUTH_URL + BENCH_JWT_SECRET of a server already running), signs a service_role JWT,
// and sends the requests of each scenario one after another (latency, not throughput: one client
// is what an admin dashboard is). Prints p50/p95/max per scenario and the X-Total-Count seen.
'use strict';

const { Buffer } = require('node:buffer');
const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const path = require('node:path');
const { freePort, waitForHealth } = require('./support');

const DEFAULT_DB = 'postgres://postgres@127.0.0.1:5432/kz_bench_users';
const GOAL_P95_MS = 50;

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const b64url = (buf) => Buffer.from(buf).toString('base64url');

function signHs256(claims, secret) {
  const head = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = b64url(JSON.stringify(claims));
  const sig = crypto.createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

async function startServer() {
  if (process.env.BENCH_AUTH_URL) {
    return { base: process.env.BENCH_AUTH_URL.replace(/\/$/, ''), secret: process.env.BENCH_JWT_SECRET, stop: async () => {} };
  }
  const port = await freePort();
  const secret = crypto.randomBytes(32).toString('hex');
  const main = path.join(__dirname, '..', 'apps', 'auth-server', 'dist', 'main.js');
  const child = spawn(process.execPath, [main], {
    env: {
      ...process.env,
      DATABASE_URL: process.env.BENCH_DATABASE_URL || DEFAULT_DB,
      AUTH_JWT_SECRET: secret,
      AUTH_SITE_URL: 'http://localhost:3000',
      AUTH_API_EXTERNAL_URL: `http://127.0.0.1:${port}`,
      AUTH_API_HOST: '127.0.0.1',
      PORT: String(port),
      AUTH_LOG_LEVEL: 'warn',
      // No mail is sent by the admin list; production refuses to start without SMTP unless sign-ups confirm themselves.
      AUTH_MAILER_AUTOCONFIRM: 'true',
      NODE_ENV: 'production',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(base, child);
  return {
    base,
    secret,
    stop: () => new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    }),
  };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function scenario(name, base, token, paths, requests) {
  const headers = { authorization: `Bearer ${token}` };
  let total = '';
  let users = 0;
  for (let i = 0; i < Math.min(20, requests); i += 1) {
    await (await fetch(base + paths[i % paths.length], { headers })).arrayBuffer(); // warm-up
  }
  const times = [];
  for (let i = 0; i < requests; i += 1) {
    const t0 = process.hrtime.bigint();
    const res = await fetch(base + paths[i % paths.length], { headers });
    const body = await res.json();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${JSON.stringify(body)}`);
    total = res.headers.get('x-total-count');
    users = Array.isArray(body) ? body.length : (body.users ?? body.entries).length;
    if (res.headers.get('x-total-count') === null) total = 'none (cursor mode)';
  }
  times.sort((a, b) => a - b);
  const p50 = percentile(times, 50);
  const p95 = percentile(times, 95);
  const flag = p95 < GOAL_P95_MS ? 'ok' : `over the ${GOAL_P95_MS} ms goal`;
  console.log(
    `${name.padEnd(34)} p50 ${p50.toFixed(1).padStart(6)} ms  p95 ${p95.toFixed(1).padStart(6)} ms  ` +
      `max ${times[times.length - 1].toFixed(1).padStart(6)} ms  (${users} rows/page, X-Total-Count ${total})  ${flag}`,
  );
  return { name, p50, p95 };
}

/**
 * GET /admin/audit (--audit; seed with `seed-users.js N --audit M`): GoTrue's page mode at page 1 and half-way down,
 * Keyzone's cursor mode at the same depth, an action filter (~25 % of entries) and one actor's trail (a rare filter).
 */
async function auditScenarios(server, token, requests) {
  const get = (url) => fetch(server.base + url, { headers: { authorization: `Bearer ${token}` } });
  const head = await get('/admin/audit?per_page=1');
  const total = Number(head.headers.get('x-total-count'));
  const deepPage = Math.max(1, Math.floor(total / 50 / 2));
  console.log(`GET /admin/audit on ${total} entries, ${requests} sequential requests per scenario`);
  const results = [];
  results.push(await scenario('audit page 1 (per_page 50)', server.base, token, ['/admin/audit?page=1&per_page=50'], requests));
  results.push(await scenario(`audit deep page ${deepPage} (per_page 50)`, server.base, token, [`/admin/audit?page=${deepPage}&per_page=50`], requests));
  // The cursor of the deep page's last entry, walked to by cursor (the cursor carries microseconds; a JSON date not).
  let cursor;
  for (let seen = 0; seen < deepPage * 50; seen += 1000) {
    const page = await get(`/admin/audit?limit=1000${cursor ? `&cursor=${cursor}` : ''}`).then((r) => r.json());
    cursor = page.pagination.next_cursor;
  }
  results.push(await scenario(`audit cursor after entry ${deepPage * 50} (limit 50)`, server.base, token, [`/admin/audit?limit=50&cursor=${cursor}`], requests));
  results.push(await scenario('audit cursor, action=logout (~25 %)', server.base, token, ['/admin/audit?limit=25&action=logout'], requests));
  const actors = (await get('/admin/audit?limit=10').then((r) => r.json())).entries.map((e) => e.payload.actor_id);
  results.push(await scenario('audit cursor, one user\'s trail (rare)', server.base, token,
    actors.map((id) => `/admin/audit?limit=25&user_id=${id}`), Math.min(requests, 20)));
  return results;
}

async function main() {
  const requests = Number(arg('requests', '200'));
  const server = await startServer();
  const now = Math.floor(Date.now() / 1000);
  const token = signHs256({ sub: 'bench', role: 'service_role', aud: 'authenticated', iat: now, exp: now + 3600 }, server.secret);
  if (process.argv.includes('--audit')) {
    try {
      const results = await auditScenarios(server, token, requests);
      const worst = results.reduce((a, b) => (a.p95 > b.p95 ? a : b));
      console.log(`worst p95: ${worst.p95.toFixed(1)} ms (${worst.name}); load average ${require('node:os').loadavg()[0].toFixed(1)}`);
    } finally {
      await server.stop();
    }
    return;
  }
  try {
    const head = await fetch(`${server.base}/admin/users?per_page=1`, { headers: { authorization: `Bearer ${token}` } });
    if (head.status !== 200) throw new Error(`GET /admin/users: ${head.status} ${await head.text()}`);
    const total = Number(head.headers.get('x-total-count'));
    const deepPage = Math.max(1, Math.floor(total / 50 / 2));
    console.log(`GET /admin/users on ${total} users, ${requests} sequential requests per scenario`);
    const results = [];
    results.push(await scenario('list page 1 (per_page 50)', server.base, token, ['/admin/users?page=1&per_page=50'], requests));
    results.push(await scenario(`list deep page ${deepPage} (per_page 50)`, server.base, token,
      [`/admin/users?page=${deepPage}&per_page=50`], requests));
    // Cursor mode (GoTrue's keyset paging) at the same depth: the cursor of the deep page's last
    // row (its format is GoTrue's base64url JSON {created_at, id}; seeded timestamps are whole
    // minutes, so the millisecond JSON timestamp is exact).
    const deep = await fetch(`${server.base}/admin/users?page=${deepPage}&per_page=50`, { headers: { authorization: `Bearer ${token}` } })
      .then((r) => r.json());
    const lastRow = deep.users[deep.users.length - 1];
    const cursor = Buffer.from(JSON.stringify({ created_at: lastRow.created_at, id: lastRow.id })).toString('base64url');
    results.push(await scenario(`cursor after row ${deepPage * 50} (limit 50)`, server.base, token,
      [`/admin/users?limit=50&cursor=${cursor}`], requests));
    results.push(await scenario('list page 1, sort created_at asc', server.base, token,
      ['/admin/users?page=1&per_page=50&sort=created_at%20asc'], requests));
    // Selective filters, as an admin searching for one person types them, taken from real rows of
    // a middle page: a whole email, a local part, a surname with the first digits of the number.
    // Rotated so no single plan or cache line dominates.
    const sample = await fetch(`${server.base}/admin/users?page=${Math.max(1, Math.floor(total / 20 / 3))}&per_page=20`, {
      headers: { authorization: `Bearer ${token}` },
    }).then((r) => r.json());
    const emails = sample.users.map((u) => u.email).filter(Boolean);
    const selective = emails.slice(0, 10).flatMap((email, i) => {
      const local = email.split('@')[0];
      return [email, local, local.replace(/^[^.]*\./, '').slice(0, -2 - (i % 2))];
    });
    results.push(await scenario('filter, selective (email fragments)', server.base, token,
      selective.map((f) => `/admin/users?page=1&per_page=50&filter=${encodeURIComponent(f)}`), requests));
    // Broad filters: a surname (~3% of users), a first name (~4%).
    const broad = ['okafor', 'maria', 'Lovelace'];
    results.push(await scenario('filter, broad (surname / first name)', server.base, token,
      broad.map((f) => `/admin/users?page=1&per_page=50&filter=${encodeURIComponent(f)}`), requests));
    // A mail domain: ~10% of users, and its trigrams (".co", "com") are in most rows.
    results.push(await scenario('filter, mail domain (gmail.com)', server.base, token,
      ['/admin/users?page=1&per_page=50&filter=gmail.com'], requests));
    // The admin console's queries (issue 43): cursor mode with its filters, first page (limit 25, as the console
    // asks). A filter matching few or no rows (banned, has MFA, anonymous on a seed that has none) is the worst
    // case of a keyset walk: it must not read the whole table to find that out.
    const consoleCases = [
      ['console: exact user id', sample.users.slice(0, 10).map((u) => `filter=${u.id}`)],
      ['console: e-mail fragment (cursor mode)', selective.slice(0, 10).map((f) => `filter=${encodeURIComponent(f)}`)],
      ['console: confirmed=true', ['confirmed=true']],
      ['console: provider=email', ['provider=email']],
      ['console: banned=true (few or none)', ['banned=true']],
      ['console: has_mfa=true (few or none)', ['has_mfa=true']],
      ['console: anonymous=true (few or none)', ['anonymous=true']],
      ['console: provider=google (few or none)', ['provider=google']],
    ];
    for (const [name, queries] of consoleCases) {
      results.push(await scenario(name, server.base, token, queries.map((q) => `/admin/users?limit=25&${q}`), Math.min(requests, 50)));
    }
    const worst = results.reduce((a, b) => (a.p95 > b.p95 ? a : b));
    console.log(`worst p95: ${worst.p95.toFixed(1)} ms (${worst.name}); goal < ${GOAL_P95_MS} ms`);
    const load = require('node:os').loadavg()[0];
    console.log(`load average during the run: ${load.toFixed(1)} on ${require('node:os').cpus().length} cores`);
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
