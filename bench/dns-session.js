#!/usr/bin/env node
// DNS session API throughput against baselines measured in the same run, on PostgreSQL:
//   1. GET /user/<id> with a session cookie  vs  a bare Express handler running the same user query on the same pool
//      (goal: ratio >= 0.7; the app adds the session lookup, the permission check, logging and the envelope);
//   2. POST /session (bcrypt cost 10)         vs  raw bcrypt.compare throughput at the same concurrency (goal >= 0.9);
//   3. GET /zone?gid=<top>&include_subgroups=true on a NicTool-shaped tree (15 groups 3 deep, 50 zones with two
//      nameservers each) vs bare Express running the same SQL (the page of the subtree's zones, counts, nameservers) on the
//      same pool (goal >= 0.7, issue 27).
//
//   pnpm --filter @keyzone/dns-session-api build
//   pnpm --filter @keyzone/bench run dns:session        [--seconds 5] [--rounds 3] [--connections 8]
//
// The servers (the app and the bare handler, sharing one Kysely pool) run in a child process so autocannon, in
// this process, does not compete with them for the event loop. A fresh database is created on TEST_DATABASE_URL's
// server (default postgres://postgres@127.0.0.1:5432/postgres) and dropped at the end. Bounded: 3 comparisons x --rounds x 2 runs of --seconds (90 s by default).
// Reading one's own record is served from the row the session lookup already read (one query, like the
// baseline); reading another user costs the session lookup plus the user query (two). Both are reported.
'use strict';

const { fork } = require('node:child_process');
const path = require('node:path');

const APP_DIST = path.dirname(require.resolve('@keyzone/dns-session-api/package.json'));
const PASSWORD = 'Bench#Passw0rd-123';
const GOALS = { user: 0.7, login: 0.9 };

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

// ---- child: the servers ----------------------------------------------------------------------------------------

async function serve() {
  const express = require('express');
  const bcrypt = require('bcrypt');
  const { loadDnsConfig } = require('@keyzone/config');
  const { createTestDatabase } = require('@keyzone/db/testing');
  // Not a bench dependency: taken from the app's own node_modules.
  const { createLogger } = require(require.resolve('@keyzone/logging', { paths: [APP_DIST] }));
  const { createApp } = require(path.join(APP_DIST, 'dist/app.js'));
  const { buildDeps } = require(path.join(APP_DIST, 'dist/deps.js'));
  const { listen, urlOf } = require(path.join(APP_DIST, 'dist/http/server.js'));
  const { createUserWithGroup } = require(path.join(APP_DIST, 'dist/services/directory/bootstrap.js'));

  const database = await createTestDatabase({ kind: 'postgres', migrate: 'dns' });
  const config = loadDnsConfig({
    dir: APP_DIST,
    nodeEnv: 'production',
    env: { DATABASE_URL: database.url, SESSION_SECRET: 'bench-session-secret-of-at-least-32-chars' },
  });
  // Production settings (bcrypt cost 10, info logs: one line per request, written to /dev/null by the parent).
  const log = createLogger({ name: 'dns-session-api-bench', level: process.env.BENCH_LOG_LEVEL || config.log.level });
  // The login limits (one statement each per login) are off: the login pair measures the session work against bcrypt,
  // and one client logging in thousands of times would be refused after 30.
  const deps = buildDeps({ config: { ...config, security: { ...config.security, loginAttemptsPerClient: 0, loginAttemptsPerAccount: 0 } }, db: database.db, log });
  const { user } = await createUserWithGroup(deps, {
    group: 'bench.example', username: 'bench', password: PASSWORD, email: 'bench@example.com',
    firstName: 'Bench', lastName: 'User', isAdmin: false,
  });
  const peer = await createUserWithGroup(deps, {
    group: 'bench.example', username: 'peer', password: PASSWORD, email: 'peer@example.com',
    firstName: 'Peer', lastName: 'User', isAdmin: false,
  });
  // The zone list's data, shaped like the NicTool migration the issue measured: under the bench user's group,
  // 3 groups, each with 4 subgroups (15 groups, 3 deep), 50 zones spread over them, two nameservers each.
  const { insertGroup } = require(path.join(APP_DIST, 'dist/queries/groups.js'));
  const { insertNameserver } = require(path.join(APP_DIST, 'dist/queries/nameservers.js'));
  const { insertZone, replaceZoneNameservers, findZones } = require(path.join(APP_DIST, 'dist/queries/zones.js'));
  const { serializeZone } = require(path.join(APP_DIST, 'dist/serialize-zones.js'));
  const now = new Date();
  const tree = [user.group_id];
  for (let i = 0; i < 3; i++) {
    const middle = await insertGroup(deps.db, { parentId: user.group_id, name: `region-${i}.bench`, now });
    tree.push(middle.id);
    for (let j = 0; j < 4; j++) tree.push((await insertGroup(deps.db, { parentId: middle.id, name: `site-${i}-${j}.bench`, now })).id);
  }
  const nameservers = [];
  for (const n of [1, 2]) {
    nameservers.push(await insertNameserver(deps.db, { group_id: user.group_id, name: `ns${n}.bench.example.`, address: `192.0.2.${n}`, address6: null, ttl: 3600, description: '', export_type: 'bind' }, now));
  }
  for (let z = 0; z < 50; z++) {
    const zone = await insertZone(deps.db, {
      group_id: tree[z % tree.length], name: `zone-${z}.bench.example.`, description: `zone ${z}`, mailaddr: 'hostmaster.bench.example.',
      serial: 2026112500, refresh: 86400, retry: 7200, expire: 1209600, minimum: 3600, ttl: 3600,
    }, now);
    await replaceZoneNameservers(deps.db, zone.id, nameservers.map((ns) => ns.id));
  }
  const app = await listen(createApp(deps), { host: '127.0.0.1', port: 0, keepAliveTimeoutSeconds: 5 });

  // The baseline: the same query as the app's findUserById, on the same pool, JSON out.
  const bare = express();
  bare.get('/user/:id', async (req, res) => {
    const row = await deps.db
      .selectFrom('dns.users')
      .select(['id', 'group_id', 'username', 'email', 'first_name', 'last_name', 'is_admin', 'deleted_at'])
      .where('id', '=', Number(req.params.id))
      .executeTakeFirst();
    res.json(row);
  });
  // The zone list's SQL without the app around it: one page of the subtree's zones with their count and nameservers.
  bare.get('/zone', async (req, res) => {
    const groups = { subtreeOf: Number(req.query.gid) };
    const { rows, total, filtered } = await findZones(deps.db, { groups, deleted: false, limit: 100, offset: 0, sortBy: 'zone', sortDir: 'asc' });
    res.json({ zone: rows.map((r) => serializeZone(r, r.nameserverIds)), meta: { pagination: { total, filtered, limit: 100, offset: 0 } } });
  });
  const bareServer = await listen(bare, { host: '127.0.0.1', port: 0, keepAliveTimeoutSeconds: 5 });

  const storedHash = (await deps.db.selectFrom('dns.users').select('password_hash').where('id', '=', user.id).executeTakeFirstOrThrow()).password_hash;

  process.on('message', async (msg) => {
    if (msg.cmd === 'bcrypt') {
      // Raw bcrypt.compare throughput: `concurrency` loops for `seconds`.
      let done = 0;
      const end = Date.now() + msg.seconds * 1000;
      await Promise.all(Array.from({ length: msg.concurrency }, async () => {
        while (Date.now() < end) {
          if (!(await bcrypt.compare(PASSWORD, storedHash))) throw new Error('bcrypt baseline: wrong hash');
          done += 1;
        }
      }));
      process.send({ cmd: 'bcrypt', perSecond: done / msg.seconds });
    } else if (msg.cmd === 'cpu') {
      const usage = process.cpuUsage();
      process.send({ cmd: 'cpu', micros: usage.user + usage.system });
    } else if (msg.cmd === 'stop') {
      await new Promise((resolve) => app.close(resolve));
      await new Promise((resolve) => bareServer.close(resolve));
      await database.destroy();
      process.send({ cmd: 'stopped' });
      process.exit(0);
    }
  });
  process.send({ cmd: 'ready', app: urlOf(app), bare: urlOf(bareServer), userId: user.id, peerId: peer.user.id, groupId: user.group_id });
}

// ---- parent: the load ------------------------------------------------------------------------------------------

function once(child, cmd) {
  return new Promise((resolve, reject) => {
    const onExit = (code) => reject(new Error(`server process exited (${code}) while waiting for ${cmd}`));
    const onMessage = (msg) => {
      if (msg.cmd === cmd) {
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(msg);
      }
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

let server; // the child process, for CPU readings

async function serverCpu() {
  server.send({ cmd: 'cpu' });
  return (await once(server, 'cpu')).micros;
}

/** Requests per second, and the server process's CPU time per request (µs): load elsewhere moves the first more. */
async function cannon(options) {
  const autocannon = require('autocannon');
  const cpuBefore = await serverCpu();
  const result = await autocannon({ connections: arg('connections', 8), duration: arg('seconds', 5), ...options });
  const cpu = (await serverCpu()) - cpuBefore;
  const bad = result.non2xx + result.errors + result.timeouts;
  if (bad > 0) throw new Error(`${options.title}: ${bad} failed requests (non2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts})`);
  cannon.lastCpuPerRequest = cpu / Math.max(1, result.requests.total);
  return result.requests.average;
}

async function main() {
  const execArgv = process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : [];
  const child = fork(__filename, ['--serve'], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv });
  server = child;
  const stop = () => child.connected && child.send({ cmd: 'stop' });
  try {
    const ready = await once(child, 'ready');
    const login = await fetch(`${ready.app}/session`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'bench@bench.example', password: PASSWORD }),
    });
    if (login.status !== 200) throw new Error(`login failed: ${login.status} ${await login.text()}`);
    const cookie = login.headers.getSetCookie()[0].split(';')[0];
    const userPath = `/user/${ready.userId}`;

    const check = await fetch(`${ready.app}${userPath}`, { headers: { cookie } });
    if (check.status !== 200) throw new Error(`GET ${userPath} with the cookie: ${check.status}`);

    const peerPath = `/user/${ready.peerId}`;
    const rawBcrypt = async () => {
      child.send({ cmd: 'bcrypt', concurrency: arg('connections', 8), seconds: arg('seconds', 5) });
      return (await once(child, 'bcrypt')).perSecond;
    };
    const loginBody = JSON.stringify({ username: 'bench@bench.example', password: PASSWORD });
    const zonesPath = `/zone?gid=${ready.groupId}&include_subgroups=true`;
    const zones = await (await fetch(`${ready.app}${zonesPath}`, { headers: { cookie } })).json();
    if (zones.zone?.length !== 50) throw new Error(`GET ${zonesPath} listed ${zones.zone?.length} zones, not 50`);
    const comparisons = [
      {
        name: 'GET /user/<own id> + cookie vs bare Express + same query', goal: GOALS.user,
        app: () => cannon({ title: 'app GET /user', url: `${ready.app}${userPath}`, headers: { cookie } }),
        base: () => cannon({ title: 'bare GET /user', url: `${ready.bare}${userPath}` }),
      },
      {
        name: 'GET /user/<id of a peer in the group> + cookie vs bare', goal: GOALS.user,
        app: () => cannon({ title: 'app GET /user (peer)', url: `${ready.app}${peerPath}`, headers: { cookie } }),
        base: () => cannon({ title: 'bare GET /user (peer)', url: `${ready.bare}${peerPath}` }),
      },
      {
        name: 'GET /zone?include_subgroups=true (15 groups, 50 zones) + cookie vs bare', goal: GOALS.user,
        app: () => cannon({ title: 'app GET /zone', url: `${ready.app}${zonesPath}`, headers: { cookie } }),
        base: () => cannon({ title: 'bare GET /zone', url: `${ready.bare}${zonesPath}` }),
      },
      {
        name: 'POST /session vs raw bcrypt.compare (cost 10)', goal: GOALS.login,
        app: () => cannon({ title: 'app POST /session', url: `${ready.app}/session`, method: 'POST', headers: { 'content-type': 'application/json' }, body: loginBody }),
        base: rawBcrypt,
      },
    ];

    // Alternating rounds (base then app, app then base, ...) and the median of the per-round ratios, so load from
    // elsewhere on the machine shifts both sides of a ratio rather than one.
    const rounds = arg('rounds', 3);
    const only = process.argv.includes('--only') ? Number(arg('only', 0)) : undefined; // profiling one comparison
    if (only !== undefined) comparisons.splice(0, comparisons.length, comparisons[only]);
    console.log(`dns-session bench (${rounds} rounds of ${arg('seconds', 5)} s per side, ${arg('connections', 8)} connections, PostgreSQL)`);
    // Warm-up (JIT, pool connections, PostgreSQL caches) so the first measured round is not the coldest.
    await cannon({ title: 'warm-up', url: `${ready.bare}${peerPath}`, duration: 2 });
    await cannon({ title: 'warm-up', url: `${ready.app}${userPath}`, headers: { cookie }, duration: 2 });
    await cannon({ title: 'warm-up', url: `${ready.app}${peerPath}`, headers: { cookie }, duration: 2 });

    let failed = false;
    for (const c of comparisons) {
      const results = [];
      for (let i = 0; i < rounds; i++) {
        // The side that goes first flips every round, so neither always meets the machine in the same state.
        let base, baseCpu, app, appCpu;
        if (i % 2 === 0) {
          base = await c.base();
          baseCpu = cannon.lastCpuPerRequest;
          app = await c.app();
          appCpu = cannon.lastCpuPerRequest;
        } else {
          app = await c.app();
          appCpu = cannon.lastCpuPerRequest;
          base = await c.base();
          baseCpu = cannon.lastCpuPerRequest;
        }
        results.push({ app, base, ratio: app / base, appCpu, baseCpu });
      }
      results.sort((a, b) => a.ratio - b.ratio);
      const median = results[Math.floor(results.length / 2)];
      failed ||= median.ratio < c.goal;
      const all = results.map((r) => r.ratio.toFixed(2)).join(', ');
      console.log(`  ${c.name}: ${median.app.toFixed(1)} req/s vs ${median.base.toFixed(1)} /s = ${median.ratio.toFixed(2)} ` +
        `(goal >= ${c.goal}) ${median.ratio >= c.goal ? 'ok' : 'BELOW GOAL'}  [round ratios ${all}]`);
      if (c.base !== rawBcrypt) {
        console.log(`      server CPU per request: app ${median.appCpu.toFixed(0)} µs, baseline ${median.baseCpu.toFixed(0)} µs`);
      }
    }
    stop();
    await once(child, 'stopped').catch(() => {});
    process.exitCode = failed ? 1 : 0;
  } catch (err) {
    stop();
    throw err;
  }
}

if (process.argv.includes('--serve')) {
  serve().catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err) => {
    console.error(err.message ?? err);
    process.exit(1);
  });
}
