// The container test: builds both images with the project's own Dockerfiles, starts the compose files as a user
// would (postgres, mailpit, auth-server, dns-session-api), first as the four per-part files, then as the root
// docker-compose.yml (`docker-compose up -d` after `cp .env.example .env`, with PowerDNS), and checks what a
// deployment must do: every HEALTHCHECK turns healthy; host ports are published on 127.0.0.1 only; a database
// password holding @ / : # works; a sign-up's confirmation mail arrives at the mail catcher and its link confirms
// the user; the DNS API's first user logs in; the apps run as a non-root user; `stop` (SIGTERM, and SIGINT for
// PostgreSQL) ends every container with exit code 0; after a restart the same logins work (the data volume
// survived). The whole stack publishes a zone to its PowerDNS, then compose.scale.yml is added to it while it runs
// (the README's command) and taken away again. Prints the image sizes.
// Run by .ci/run when a Docker engine can start: node scripts/container-test.mjs. Needs the base images
// (scripts/container-stand-ins.sh pulls them or builds local stand-ins).
import { spawnSync } from 'node:child_process';
import { Resolver } from 'node:dns/promises';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DOCKER = process.env.DOCKER ?? '/usr/bin/docker';
const PROJECT = 'keyzone-container-test';
const PART_FILES = ['compose.postgres.yml', 'compose.mailpit.yml', 'compose.auth-server.yml', 'compose.dns-session-api.yml'];
const started = Date.now();

const log = (msg) => console.log(`[container-test ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${msg}`);
function fail(msg) {
  throw new Error(msg);
}
function check(condition, msg) {
  if (!condition) fail(msg);
}

/**
 * A free port below Linux's ephemeral range (32768-60999): the images build for minutes between choosing ports and
 * publishing them, and a port the kernel hands out to outgoing connections may be taken by then.
 */
async function freePort() {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    const free = await new Promise((resolve) => {
      const server = createServer().once('error', () => resolve(false)).listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.status !== 0 && !options.allowFailure) {
    fail(`${cmd} ${args.join(' ')} exited ${result.status}\n${(result.stdout ?? '').slice(-4000)}\n${(result.stderr ?? '').slice(-4000)}`);
  }
  return result;
}

// Compose v2 when the docker CLI has it, else docker-compose 1.29 (Debian's); both read the same files.
function composeCommand() {
  if (spawnSync(DOCKER, ['compose', 'version'], { encoding: 'utf8' }).status === 0) return [DOCKER, ['compose']];
  return ['docker-compose', []];
}

async function waitFor(what, timeoutMs, probe) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) fail(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function json(response) {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    fail(`expected JSON from ${response.url} (${response.status}): ${text.slice(0, 300)}`);
  }
}

const decodeQuotedPrintable = (text) =>
  text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex) => String.fromCharCode(parseInt(hex, 16)));

/** A service deployed alone reaches your own PostgreSQL by DATABASE_URL, without the postgres service. */
function externalDatabaseIsASetting() {
  const [composeBin, composePrefix] = composeCommand();
  const envDir = mkdtempSync(join(tmpdir(), 'kz-container-test-'));
  try {
    const envFile = join(envDir, 'env');
    writeFileSync(envFile, ['DATABASE_URL=postgres://kz@db.example.net:5432/kz', 'POSTGRES_PASSWORD=p@ss/w:rd#1',
      'AUTH_SITE_URL=http://localhost/', 'AUTH_API_EXTERNAL_URL=http://localhost', 'SESSION_SECRET=s', ''].join('\n'));
    const config = run(composeBin, [...composePrefix, '--env-file', envFile, '-f', 'compose.auth-server.yml', '-f', 'compose.dns-session-api.yml', 'config']).stdout;
    const urls = config.match(/DATABASE_URL: postgres:\/\/kz@db\.example\.net:5432\/kz\s*$/gm) ?? [];
    const passwords = config.match(/PGPASSWORD: p@ss\/w:rd#1\s*$/gm) ?? [];
    check(urls.length === 2 && passwords.length === 2 && !/postgres:17/.test(config), `DATABASE_URL as a setting:\n${config}`);
    log('each service alone takes DATABASE_URL (its own PostgreSQL) and the password apart');
  } finally {
    rmSync(envDir, { recursive: true, force: true });
  }
}

async function main() {
  externalDatabaseIsASetting();
  log('the per-part compose files');
  await deployment(PART_FILES, { build: true, restart: true });
  log('the root docker-compose.yml with PowerDNS (the same images), then compose.scale.yml added while it runs');
  await deployment([], { build: ['powerdns'], restart: false, wholeStack: true });
  log('passed');
}

/** Two consecutive free ports (a host-port range for two instances of one service). */
async function freePortPair() {
  for (;;) {
    const port = await freePort();
    const next = await new Promise((resolve) => {
      const probe = createServer().once('error', () => resolve(false)).listen(port + 1, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (next) return port;
  }
}

/** One deployment: `files` as -f arguments, or none for the root docker-compose.yml. */
async function deployment(FILES, { build, restart, wholeStack = false }) {
  const [composeBin, composePrefix] = composeCommand();
  const envDir = mkdtempSync(join(tmpdir(), 'kz-container-test-'));
  const ports = { auth: await freePort(), dns: await freePort(), mail: await freePort(), pdns: await freePort() };
  // The whole stack gets compose.scale.yml later: `proxyAuth` and `proxyDns` are then the proxy's ports. The test
  // stands in for a CDN in front of nginx: it arrives from the network's gateway, trusted too, so the
  // X-Forwarded-For it sends names the client.
  const proxyPorts = wholeStack ? { auth: await freePort(), dns: await freePort() } : undefined;
  const stackSettings = wholeStack
    ? [
      `PROXY_AUTH_PORT=${proxyPorts.auth}`, `PROXY_DNS_PORT=${proxyPorts.dns}`,
      'AUTH_TRUSTED_PROXIES=172.30.87.10,172.30.87.1', 'DNS_TRUSTED_PROXIES=172.30.87.10,172.30.87.1',
      `POWERDNS_API_KEY=${randomBytes(24).toString('hex')}`, `POWERDNS_HOST_PORT=${ports.pdns}`,
      // The whole stack sends mail to its mail catcher when AUTH_SMTP_HOST is empty (as in .env.example).
      'AUTH_SMTP_HOST=',
    ]
    : ['AUTH_SMTP_HOST=mailpit', 'AUTH_SMTP_PORT=1025', 'AUTH_SMTP_ADMIN_EMAIL=auth@example.com'];
  const secret = () => randomBytes(24).toString('hex');
  const envFile = join(envDir, 'env');
  writeFileSync(
    envFile,
    [
      // Characters that end a URL's user-info, host or path: the services never put the password into a URL.
      `POSTGRES_PASSWORD=p@ss/w:rd#1-${secret()}`,
      'AUTH_SITE_URL=http://localhost:3000',
      `AUTH_API_EXTERNAL_URL=http://localhost:${ports.auth}`,
      `AUTH_JWT_SECRET=${secret()}`,
      `SESSION_SECRET=${secret()}`,
      `AUTH_HOST_PORT=${ports.auth}`,
      `DNS_HOST_PORT=${ports.dns}`,
      `MAILPIT_HOST_PORT=${ports.mail}`,
      ...stackSettings,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  const composeWith = (files, args, options = {}) =>
    run(composeBin, [...composePrefix, '--env-file', envFile, '-p', PROJECT, ...files.flatMap((f) => ['-f', f]), ...args], {
      ...options,
      // docker-compose 1.29 builds through the `docker` on PATH: the one beside DOCKER.
      env: { ...process.env, PATH: `${dirname(DOCKER)}:${process.env.PATH}`, DOCKER_BUILDKIT: '1', COMPOSE_DOCKER_CLI_BUILD: '1', ...options.env },
    });
  const compose = (args, options) => composeWith(FILES, args, options);
  const containerOf = (service) => compose(['ps', '-q', service]).stdout.trim();
  const inspect = (format, id) => run(DOCKER, ['inspect', '-f', format, id]).stdout.trim();

  const services = ['postgres', 'auth-server', 'dns-session-api', ...(wholeStack ? ['powerdns'] : [])];
  const waitHealthy = async (which = services, composeOf = compose) => {
    for (const service of which) {
      await waitFor(`${service} to be healthy`, 180_000, async () => {
        const id = composeOf(['ps', '-q', service]).stdout.trim();
        const status = id && inspect('{{.State.Health.Status}}', id);
        if (status === 'unhealthy') fail(`${service} is unhealthy:\n${composeOf(['logs', '--tail', '50', service]).stdout}`);
        return status === 'healthy';
      });
      log(`${service} healthy`);
    }
  };

  const auth = `http://127.0.0.1:${ports.auth}`;
  const dns = `http://127.0.0.1:${ports.dns}`;
  const mail = `http://127.0.0.1:${ports.mail}`;
  const email = `ada+${Date.now()}@example.com`;
  const password = 'correct horse battery staple';
  const post = (url, body, headers = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  const authLogin = async () => {
    const response = await post(`${auth}/token?grant_type=password`, { email, password });
    const body = await json(response);
    check(response.status === 200 && body.access_token && body.user?.email === email, `password sign-in: ${response.status} ${JSON.stringify(body)}`);
  };
  const dnsLogin = async () => {
    const response = await post(`${dns}/session`, { username: 'alice@Example', password });
    const body = await json(response);
    check(response.status === 200, `DNS login: ${response.status} ${JSON.stringify(body)}`);
    const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0];
    const me = await fetch(`${dns}/session`, { headers: { cookie } });
    check(me.status === 200, `GET /session with the cookie: ${me.status}`);
  };

  try {
    compose(['down', '-v', '--remove-orphans'], { allowFailure: true });
    if (build) {
      // `build` true: every image; a list: only those (the apps' images are the per-part deployment's).
      log(`building ${build === true ? 'the images' : build.join(', ')} (${composeBin} ${composePrefix.join(' ')})`.trim());
      compose(['build', ...(build === true ? [] : build)]);
    }
    log('starting');
    compose(['up', '-d']);
    await waitHealthy();

    // Every published port is on 127.0.0.1 unless PUBLISH_ADDRESS says otherwise.
    for (const service of ['auth-server', 'dns-session-api', 'mailpit', ...(wholeStack ? ['powerdns'] : [])]) {
      const bindings = run(DOCKER, ['port', containerOf(service)]).stdout.trim().split('\n');
      check(bindings.length > 0 && bindings.every((b) => / -> 127\.0\.0\.1:\d+$/.test(b)), `${service} publishes ${bindings.join(', ')}`);
    }
    log('host ports published on 127.0.0.1 only');

    for (const service of ['auth-server', 'dns-session-api']) {
      const uid = compose(['exec', '-T', service, 'id', '-u']).stdout.trim();
      check(uid !== '' && uid !== '0', `${service} runs as uid ${uid}`);
      log(`${service} runs as uid ${uid}`);
    }

    const signup = await post(`${auth}/signup`, { email, password });
    const signupBody = await json(signup);
    check(signup.status === 200 && !signupBody.email_confirmed_at, `sign-up: ${signup.status} ${JSON.stringify(signupBody)}`);
    const message = await waitFor('the confirmation mail', 60_000, async () => {
      const list = await json(await fetch(`${mail}/api/v1/messages`));
      return list.messages.find((m) => m.To.some((to) => to.Address === email));
    });
    const raw = decodeQuotedPrintable(await (await fetch(`${mail}/api/v1/message/${message.ID}/raw`)).text());
    const link = raw.match(new RegExp(`http://localhost:${ports.auth}/verify\\?token=[^"\\s<>]+`))?.[0]?.replace(/&amp;/g, '&');
    check(link, `no confirmation link in the mail:\n${raw.slice(0, 2000)}`);
    const confirmed = await fetch(link.replace('localhost', '127.0.0.1'), { redirect: 'manual' });
    const location = confirmed.headers.get('location') ?? '';
    check(confirmed.status >= 300 && confirmed.status < 400 && location.includes('access_token='), `confirmation link: ${confirmed.status} ${location}`);
    await authLogin();
    log('signed up, confirmed by the mailed link, signed in');

    compose(['exec', '-T', 'dns-session-api', 'node', 'dist/main.js', 'create-user', '--group', 'Example', '--username', 'alice',
      '--password', password, '--email', 'alice@example.com', '--first-name', 'Alice', '--last-name', 'Doe', '--admin']);
    await dnsLogin();
    log('DNS API: first user created and logged in');
    // Each service turned healthy, so its health check has passed at least once: at debug, never in the log.
    for (const service of ['auth-server', 'dns-session-api']) {
      const lines = compose(['logs', '--no-color', service]).stdout.split('\n').filter((line) => line.includes('"path":"/health"'));
      check(lines.length === 0, `${service} logged its health checks:\n${lines.slice(0, 3).join('\n')}`);
    }
    log('passing health checks are not logged (debug)');
    if (wholeStack) {
      const pdnsImage = inspect('{{.Image}}', containerOf('powerdns'));
      log(`powerdns image: user ${inspect('{{.Config.User}}', pdnsImage)}, ${(Number(inspect('{{.Size}}', pdnsImage)) / 1e6).toFixed(0)} MB`);
      await publishesToPowerDns({ dns, pdnsPort: ports.pdns, post, password });
      await scaleUpAndDown({ composeWith, waitHealthy, post, email, password, proxyPorts, ports });
    }
    if (!restart) return;

    const ids = Object.fromEntries(['postgres', 'mailpit', 'auth-server', 'dns-session-api'].map((s) => [s, containerOf(s)]));
    compose(['stop']);
    for (const [service, id] of Object.entries(ids)) {
      const code = inspect('{{.State.ExitCode}}', id);
      check(code === '0', `${service} exited ${code} on stop:\n${compose(['logs', '--tail', '30', service]).stdout}`);
    }
    log('stopped: every container exited 0');

    compose(['up', '-d']);
    await waitHealthy();
    await authLogin();
    await dnsLogin();
    log('restarted: both logins still work (the volume kept the data)');

    for (const service of ['auth-server', 'dns-session-api']) {
      const image = inspect('{{.Image}}', containerOf(service));
      const user = inspect('{{.Config.User}}', image);
      const size = Number(inspect('{{.Size}}', image));
      check(user && user !== 'root' && user !== '0', `${service} image user is '${user}'`);
      log(`${service} image: user ${user}, ${(size / 1e6).toFixed(0)} MB`);
    }
    log('per-part files: passed');
  } finally {
    compose(['down', '-v', '--remove-orphans'], { allowFailure: true });
    rmSync(envDir, { recursive: true, force: true });
  }
}

/** The whole stack's DNS API publishes to its PowerDNS (deploy/dns-config/publish.yml): a record answers over DNS. */
async function publishesToPowerDns({ dns, pdnsPort, post, password }) {
  const login = await post(`${dns}/session`, { username: 'alice@Example', password });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  const send = async (path, body) => {
    const response = await post(`${dns}${path}`, body, { cookie });
    const parsed = await json(response);
    check(response.status === 200 || response.status === 201, `POST ${path}: ${response.status} ${JSON.stringify(parsed)}`);
    return parsed;
  };
  const nameserver = await send('/nameserver', { name: 'ns1.example.com.', address: '192.0.2.53', export: { type: 'powerdns' } });
  const nsId = nameserver.nameserver?.id ?? nameserver.id;
  const zone = await send('/zone', { zone: 'published.example.', mailaddr: 'hostmaster@example.com', nameservers: [nsId] });
  const zid = zone.zone?.id ?? zone.id;
  await send('/zone_record', { zid, owner: 'www', type: 'A', ttl: 300, address: '192.0.2.80' });
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([`127.0.0.1:${pdnsPort}`]);
  await waitFor('www.published.example. from PowerDNS', 60_000, async () => (await resolver.resolve4('www.published.example')).includes('192.0.2.80'));
  log('DNS API published a zone to the stack\'s PowerDNS: www.published.example answers 192.0.2.80');
}

/**
 * The README's command on the running stack: compose.scale.yml adds a second instance of each service and nginx
 * (the first instances are recreated with fixed addresses), and `up -d --remove-orphans` takes them away again.
 * No container is left behind under a renamed name.
 */
async function scaleUpAndDown({ composeWith, waitHealthy, post, email, password, proxyPorts, ports }) {
  const scaled = ['docker-compose.yml', 'compose.scale.yml'];
  const [authRange, dnsRange] = [await freePortPair(), await freePortPair()];
  const readmeEnv = { AUTH_HOST_PORT: `${authRange}-${authRange + 1}`, DNS_HOST_PORT: `${dnsRange}-${dnsRange + 1}` };
  const strays = () => run(DOCKER, ['ps', '-a', '--filter', `label=com.docker.compose.project=${PROJECT}`, '--format', '{{.Names}}']).stdout
    .trim().split('\n').filter((name) => name && !new RegExp(`^${PROJECT.replace(/-/g, '')}_[a-z-]+_\\d+$|^${PROJECT}[_-][a-z-]+[_-]\\d+$`).test(name));
  composeWith(scaled, ['up', '-d'], { env: readmeEnv });
  const composeScaled = (args, options = {}) => composeWith(scaled, args, { ...options, env: { ...readmeEnv, ...options.env } });
  await waitHealthy(['postgres', 'powerdns', 'auth-server', 'auth-server-b', 'dns-session-api', 'dns-session-api-b'], composeScaled);
  check(strays().length === 0, `containers left behind by the scale-up: ${strays().join(', ')}`);
  log('compose.scale.yml added to the running stack: two instances of each service, nothing left behind');
  await throughTheProxy({ auth: `http://127.0.0.1:${proxyPorts.auth}`, compose: composeScaled, waitHealthy: (which) => waitHealthy(which, composeScaled), post, email, password });
  const viaProxy = await fetch(`http://127.0.0.1:${proxyPorts.dns}/session`);
  check(viaProxy.status === 401 || viaProxy.status === 200, `the DNS API through the proxy: ${viaProxy.status}`);

  composeWith([], ['up', '-d', '--remove-orphans']);
  await waitHealthy(['auth-server', 'dns-session-api']);
  const left = run(DOCKER, ['ps', '-a', '--filter', `label=com.docker.compose.project=${PROJECT}`, '--format', '{{.Label "com.docker.compose.service"}}']).stdout;
  check(!/auth-server-b|dns-session-api-b|proxy/.test(left) && strays().length === 0, `after scaling down: ${left.replace(/\n/g, ' ')} ${strays().join(', ')}`);
  const signIn = await post(`http://127.0.0.1:${ports.auth}/token?grant_type=password`, { email, password });
  check(signIn.status === 200, `sign-in after scaling down: ${signIn.status}`);
  log('back to one instance each (up -d --remove-orphans): the second instances and the proxy are gone, sign-in works');
}

/**
 * Behind the proxy: a user keeps refreshing (one request after the other) while each auth-server instance in turn
 * is stopped with SIGTERM and started again, and no request fails; a request limit counts one client across both
 * instances, and another client has its own bucket.
 */
async function throughTheProxy({ auth, compose, waitHealthy, post, email, password }) {
  const signIn = await post(`${auth}/token?grant_type=password`, { email, password }, { 'x-forwarded-for': '198.51.100.200' });
  let refreshToken = (await json(signIn)).refresh_token;
  check(refreshToken, 'sign-in through the proxy gave no refresh token');
  let done = false;
  let refreshed = 0;
  const failures = [];
  const refreshing = (async () => {
    for (let i = 0; !done; i += 1) {
      // Each refresh as its own client address, so the loop stays far from the /token limit.
      const response = await post(`${auth}/token?grant_type=refresh_token`, { refresh_token: refreshToken }, { 'x-forwarded-for': `198.51.${100 + (i >> 8) % 50}.${i % 256}` })
        .catch((error) => ({ status: 0, text: async () => error.message }));
      if (response.status === 200) {
        refreshToken = (await response.json()).refresh_token;
        refreshed += 1;
      } else {
        failures.push(`${response.status} ${await response.text()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    for (const instance of ['auth-server', 'auth-server-b']) {
      compose(['stop', instance]);
      log(`${instance} stopped (SIGTERM); ${refreshed} refreshes so far`);
      await new Promise((resolve) => setTimeout(resolve, 2000)); // requests keep coming while it is down
      compose(['start', instance]);
      await waitHealthy([instance]);
    }
  } finally {
    done = true;
    await refreshing;
  }
  check(failures.length === 0, `refreshes failed during the rolling restart: ${failures.slice(0, 5).join('; ')}`);
  check(refreshed >= 20, `only ${refreshed} refreshes ran during the rolling restart`);
  log(`rolling restart of both auth-server instances: ${refreshed} refreshes, none failed`);

  // /token: burst 30 per client plus 0.5/s, whichever instance nginx picks (it alternates). Requests go one after
  // the other until the first 429; the refill while they run is allowed for.
  const attempt = (client) => post(`${auth}/token?grant_type=password`, { email, password: 'wrong-password' }, { 'x-forwarded-for': client });
  const started = Date.now();
  let admitted = 0;
  for (;;) {
    const status = (await attempt('203.0.113.7')).status;
    if (status === 429) break;
    check(status === 400 && admitted < 100, `attempt ${admitted + 1} of one client: ${status}`);
    admitted += 1;
  }
  const refill = Math.ceil(((Date.now() - started) / 1000) * 0.5);
  check(admitted >= 30 && admitted <= 30 + refill + 1, `one client across both instances got ${admitted} attempts (burst 30, refill ${refill})`);
  const other = (await attempt('203.0.113.8')).status;
  check(other === 400, `another client behind the same proxy: ${other}`);
  log('one client gets one /token bucket across both instances; another client has its own');
}

main().catch((error) => {
  console.error(`[container-test] FAILED: ${error.message}`);
  process.exit(1);
});
