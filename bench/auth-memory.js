#!/usr/bin/env node
// Auth-server memory as deployed (issue 24): the built server (`node dist/main.js`, NODE_ENV=production) runs as
// its own process on a fresh database; its resident set (VmRSS from /proc) is read idle after start, every
// 100 ms during BENCH_SECONDS (20) of GET /user load (50 connections, autocannon in this process), and 2 s after.
// Goal: RSS after the load <= 150 MB. Run twice to compare: as is, and with METRICS_ENABLED=true (which loads
// the OpenTelemetry SDK) by BENCH_TELEMETRY=1. The server runs with the node flags of the image (IMAGE_NODE_ARGS).
//
//   node bench/auth-memory.js      (PostgreSQL at BENCH_DATABASE_URL; built packages: pnpm build)
//
// Linux only (/proc). Exit code 1 when the RSS after the load is over the goal.
'use strict';

const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const path = require('node:path');
const autocannon = require('autocannon');
const { freePort, rssMb, runStatement, waitForHealth } = require('./support');

const SERVER_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.BENCH_SECONDS || 20);
const GOAL_MB = 150;
const IMAGE_NODE_ARGS = '--max-semi-space-size=4 --heap-growing-percent=50';
const MAIN = path.join(path.dirname(require.resolve('@keyzone/auth-server/package.json')), 'dist', 'main.js');

async function main() {
  const name = `kz_bench_mem_${randomBytes(4).toString('hex')}`;
  await runStatement(SERVER_URL, `create database ${name}`);
  const dbUrl = new URL(SERVER_URL);
  dbUrl.pathname = `/${name}`;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // The image's node flags (apps/auth-server/Dockerfile CMD) unless BENCH_NODE_ARGS says otherwise ('' for none).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? IMAGE_NODE_ARGS).split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, MAIN], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      PATH: process.env.PATH, NODE_ENV: 'production', PORT: String(port), AUTH_API_HOST: '127.0.0.1', DATABASE_URL: dbUrl.toString(),
      AUTH_SITE_URL: 'http://localhost:3000', AUTH_API_EXTERNAL_URL: url, AUTH_JWT_SECRET: randomBytes(32).toString('hex'),
      AUTH_MAILER_AUTOCONFIRM: 'true', AUTH_LOG_LEVEL: 'warn', AUTH_RATE_LIMIT_TOKEN_REFRESH: '100000',
      ...(process.env.BENCH_TELEMETRY ? { METRICS_ENABLED: 'true', METRICS_EXPORTER: 'prometheus', OTEL_EXPORTER_PROMETHEUS_PORT: String(await freePort()), OTEL_EXPORTER_PROMETHEUS_HOST: '127.0.0.1' } : {}),
    },
  });
  try {
    await waitForHealth(url, child);
    const signup = await fetch(`${url}/signup`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `mem-${randomBytes(3).toString('hex')}@bench.test`, password: 'bench-password-1' }),
    });
    const { access_token: token } = await signup.json();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idle = rssMb(child.pid);
    let peak = idle;
    const sampler = setInterval(() => { peak = Math.max(peak, rssMb(child.pid)); }, 100);
    const result = await autocannon({ url: `${url}/user`, connections: 50, duration: SECONDS, headers: { authorization: `Bearer ${token}` } });
    clearInterval(sampler);
    const after = rssMb(child.pid);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const settled = rssMb(child.pid);
    console.log(`auth-server${process.env.BENCH_TELEMETRY ? ' with METRICS_ENABLED' : ''}: ${Math.round(result.requests.average)} req/s, ` +
      `${result.non2xx} non-2xx; RSS idle ${idle.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, after ${SECONDS} s of load ${after.toFixed(0)} MB, ` +
      `2 s later ${settled.toFixed(0)} MB (goal <= ${GOAL_MB} MB)`);
    if (after > GOAL_MB) process.exitCode = 1;
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await runStatement(SERVER_URL, `drop database if exists ${name} with (force)`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
