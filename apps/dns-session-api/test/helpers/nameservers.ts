// Real authoritative servers for the publishing tests, as plain processes on 127.0.0.1 free ports: PowerDNS
// (Debian's pdns-server with the sqlite3 backend, webserver and API on) and BIND (named, loading the include
// file Keyzone writes). `dig` asks them.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

/** dig +short, one answer per line, sorted. */
export function dig(port: number, name: string, type: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile('dig', ['+short', '+time=2', '+tries=1', `@127.0.0.1`, '-p', String(port), name, type], (err, stdout) => {
      if (err && !stdout) reject(err);
      else resolve(stdout.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith(';;')).sort());
    });
  });
}

/** Polls `probe` until it returns true (deadline 30 s): the servers apply changes asynchronously. */
export async function eventually(what: string, probe: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface PowerDns {
  dnsPort: number;
  apiUrl: string;
  apiKey: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}

function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export async function preparePowerDns(dir: string): Promise<PowerDns> {
  mkdirSync(dir, { recursive: true });
  const [dnsPort, apiPort] = [await freePort(), await freePort()];
  const database = path.join(dir, 'pdns.sqlite3');
  await new Promise<void>((resolve, reject) =>
    execFile('sh', ['-c', `sqlite3 '${database}' < /usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql`], (err) => (err ? reject(err) : resolve())));
  const apiKey = 'keyzone-test-key';
  writeFileSync(path.join(dir, 'pdns.conf'), [
    'launch=gsqlite3', `gsqlite3-database=${database}`, 'gsqlite3-dnssec=yes', 'local-address=127.0.0.1', `local-port=${dnsPort}`,
    'webserver=yes', 'webserver-address=127.0.0.1', `webserver-port=${apiPort}`, 'webserver-allow-from=127.0.0.0/8',
    'api=yes', `api-key=${apiKey}`, `socket-dir=${dir}`, 'guardian=no', 'daemon=no', 'disable-syslog=yes', 'loglevel=3',
    'zone-cache-refresh-interval=0', 'cache-ttl=0', 'negquery-cache-ttl=0', 'query-cache-ttl=0', '',
  ].join('\n'));
  let child: ChildProcess | undefined;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  return {
    dnsPort, apiUrl, apiKey,
    async start() {
      child = spawn('pdns_server', [`--config-dir=${dir}`], { stdio: 'ignore' });
      await eventually('PowerDNS to answer', async () => {
        try {
          return (await fetch(`${apiUrl}/api/v1/servers/localhost`, { headers: { 'x-api-key': apiKey } })).ok;
        } catch {
          return false;
        }
      });
    },
    stop: () => stopProcess(child),
  };
}

export interface Bind {
  dnsPort: number;
  zonesDir: string;
  includeFile: string;
  reloadCommand: string[];
  /** rndc zonestatus {zone} over BIND's control channel: whether it loaded a zone, and which serial. */
  checkCommand: string[];
  stop(): Promise<void>;
}

/** `options`: more statements for named.conf's options block (e.g. `max-records 20;`). */
/** `logFile`: where named's log goes (it runs with -g, which sends every log category to stderr). */
export async function startBind(dir: string, options = '', logFile?: string): Promise<Bind> {
  const zonesDir = path.join(dir, 'zones');
  mkdirSync(zonesDir, { recursive: true });
  const includeFile = 'keyzone-zones.conf';
  writeFileSync(path.join(zonesDir, includeFile), '');
  const [dnsPort, controlPort] = [await freePort(), await freePort()];
  const keyFile = path.join(dir, 'rndc.key');
  await new Promise<void>((resolve, reject) =>
    execFile('rndc-confgen', ['-a', '-A', 'hmac-sha256', '-c', keyFile], (err) => (err ? reject(err) : resolve())));
  const pidFile = path.join(dir, 'named.pid');
  writeFileSync(path.join(dir, 'named.conf'), `options {
  directory "${dir}";
  pid-file "${pidFile}";
  listen-on port ${dnsPort} { 127.0.0.1; };
  listen-on-v6 { none; };
  recursion no;
  notify no;
  ${options}
};
include "${keyFile}";
controls { inet 127.0.0.1 port ${controlPort} allow { 127.0.0.1; } keys { "rndc-key"; }; };
include "${path.join(zonesDir, includeFile)}";
`);
  const child = spawn('named', ['-g', '-c', path.join(dir, 'named.conf')], { stdio: ['ignore', 'ignore', logFile ? openSync(logFile, 'a') : 'ignore'] });
  await eventually('BIND to answer', async () => {
    try {
      await dig(dnsPort, 'localhost.', 'A');
      return child.exitCode === null;
    } catch {
      return false;
    }
  });
  return {
    dnsPort, zonesDir, includeFile, reloadCommand: ['kill', '-HUP', String(child.pid)],
    checkCommand: ['rndc', '-k', keyFile, '-s', '127.0.0.1', '-p', String(controlPort), 'zonestatus', '{zone}'],
    stop: () => stopProcess(child),
  };
}
