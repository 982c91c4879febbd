// Plumbing the benches share: free ports, a statement on the PostgreSQL server (create/drop the bench database),
// waiting for a spawned server's /health, and a process's resident set.
'use strict';

const { readFileSync } = require('node:fs');
const { createServer } = require('node:net');
const autocannon = require('autocannon');
const { Client } = require('pg');

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** One statement on a fresh connection (e.g. `create database …` against the server's maintenance database). */
async function runStatement(connectionString, statement) {
  const client = new Client({ connectionString });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Polls `<url>/health` until it answers 2xx; fails early when `child` exits. */
async function waitForHealth(url, child, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    if (await fetch(`${url}/health`).then((r) => r.ok, () => false)) return;
    if (Date.now() > deadline) throw new Error(`the server did not become healthy within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** VmRSS of a process in MB (Linux /proc). */
function rssMb(pid) {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** One autocannon run; prints a line and resolves {rps, bad} (bad: non-2xx + errors + timeouts). */
function run(name, options) {
  return new Promise((resolve, reject) => {
    autocannon({ timeout: 30, ...options }, (err, result) => {
      if (err) return reject(err);
      const bad = result.non2xx + result.errors + result.timeouts;
      const rps = result.requests.total / result.duration;
      console.log(
        `  ${name.padEnd(34)} ${rps.toFixed(0).padStart(7)} req/s` +
          `  p50 ${String(result.latency.p50).padStart(4)} ms  p99 ${String(result.latency.p99).padStart(4)} ms` +
          `  non-2xx ${result.non2xx}  errors ${result.errors + result.timeouts}`,
      );
      if (result.non2xx > 0) {
        const codes = Object.entries(result.statusCodeStats ?? {}).filter(([code]) => !code.startsWith('2'));
        console.log(`    non-2xx by status: ${codes.map(([code, stat]) => `${code} x${stat.count}`).join(', ')}`);
      }
      resolve({ rps, bad });
    });
  });
}

/**
 * `count` fresh sessions of `userId`, each with a live refresh token, inserted directly (signing in that many
 * times would cost as many bcrypt hashes).
 */
async function insertRefreshChains(connectionString, userId, count) {
  const client = new Client({ connectionString });
  await client.connect();
  try {
    const { rows } = await client.query(
      `WITH s AS (
         INSERT INTO auth.sessions (id, user_id, created_at, updated_at, aal)
         SELECT gen_random_uuid(), $1, now(), now(), 'aal1' FROM generate_series(1, $2) RETURNING id)
       INSERT INTO auth.refresh_tokens (instance_id, token, user_id, session_id, revoked, created_at, updated_at)
       SELECT '00000000-0000-0000-0000-000000000000', substr(md5(random()::text || s.id::text), 1, 12), $1, s.id, false, now(), now()
       FROM s RETURNING token`,
      [userId, count],
    );
    return rows.map((row) => row.token);
  } finally {
    await client.end();
  }
}

/**
 * autocannon requests that rotate the given refresh tokens: a request borrows an idle chain (session) and returns
 * it with its new token, so no two requests ever hold one chain at once (autocannon resets its per-connection
 * context after every request, so the chain cannot live there). `failures` collects non-200 answers.
 */
function refreshRequests(refreshTokens, failures) {
  const idle = refreshTokens.map((_, i) => i);
  return [
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      setupRequest: (req, context) => {
        context.chain = idle.pop();
        return { ...req, body: JSON.stringify({ refresh_token: refreshTokens[context.chain] }) };
      },
      onResponse: (status, body, context) => {
        if (status === 200) refreshTokens[context.chain] = JSON.parse(body).refresh_token;
        else failures.push(`${status} ${body}`);
        idle.push(context.chain);
      },
    },
  ];
}

module.exports = { freePort, runStatement, waitForHealth, rssMb, median, run, insertRefreshChains, refreshRequests };
