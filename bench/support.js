// Plumbing the benches share: free ports, a statement on the PostgreSQL server (create/drop the bench database),
// waiting for a spawned server's /health, and a process's resident set.
'use strict';

const { readFileSync } = require('node:fs');
const { createServer } = require('node:net');
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

module.exports = { freePort, runStatement, waitForHealth, rssMb };
