// Two instances over one database never publish the same zone at once (issues 24, 38): while instance A is in the
// middle of publishing a zone (its call to PowerDNS held at a gate, under its lease on the zone's jobs), instance
// B's run does nothing, and the job is applied once A is let through. Real PowerDNS behind the gate, real
// PostgreSQL under both instances.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@keyzone/db/testing';
import { dig, eventually, preparePowerDns, type PowerDns } from '../helpers/nameservers';
import { startTestServer, type TestServer } from '../helpers/server';
import { addRecord, expectStatus } from '../zones/dns-client';

/** An HTTP gate in front of PowerDNS: holds each call while closed, counts calls and how many wait at once. */
class Gate {
  calls = 0;
  waiting = 0;
  mostWaiting = 0;
  private open = false;
  private held: Array<() => void> = [];
  private server: Server | undefined;

  constructor(private readonly target: string) {}

  async listen(): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as { port: number };
    return `http://127.0.0.1:${port}`;
  }

  release(): void {
    this.open = true;
    for (const go of this.held.splice(0)) go();
  }

  close(): Promise<void> {
    this.release();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.calls += 1;
    if (!this.open) {
      this.waiting += 1;
      this.mostWaiting = Math.max(this.mostWaiting, this.waiting);
      await new Promise<void>((resolve) => this.held.push(resolve));
      this.waiting -= 1;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'content-length')) as Record<string, string>;
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const answer = await fetch(`${this.target}${req.url}`, { method: req.method, headers, body });
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  }
}

let dir: string;
let pdns: PowerDns;
let gate: Gate;
let database: TestDatabase;
let a: TestServer;
let b: TestServer;
const ZONE = 'one-publisher.example.';

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kz-one-publisher-'));
  pdns = await preparePowerDns(path.join(dir, 'pdns'));
  await pdns.start();
  gate = new Gate(pdns.apiUrl);
  const gateUrl = await gate.listen();
  database = await createTestDatabase({ kind: 'postgres', migrate: 'dns' });
  const publish = {
    enabled: true, pollSeconds: 60, timeoutSeconds: 30, maxRetrySeconds: 1,
    powerdns: { 'ns1.gate.test.': { url: gateUrl, apiKey: pdns.apiKey, serverId: 'localhost' } },
  };
  // No polling: each instance's publisher runs only when kicked (after a change, or by the test).
  a = await startTestServer({ database, publish });
  b = await startTestServer({ database, publish });
  await a.seedUser({ group: 'OnePublisher', username: 'alice', isAdmin: true });
}, 120_000);

afterAll(async () => {
  gate?.release();
  await a?.deps.publisher?.idle();
  await b?.deps.publisher?.idle();
  await a?.close();
  await b?.close();
  await database?.destroy();
  await gate?.close();
  await pdns?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const queuedJobs = async () => Number((await database.db.selectFrom('dns.publish_jobs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

it('runs the publisher on one instance at a time, and the other takes over when it is free', async () => {
  const onA = await a.login('alice@OnePublisher');
  const ns = expectStatus(await onA.post('/nameserver', { name: 'ns1.gate.test.', address: '192.0.2.1', export: { type: 'powerdns' } }), 201).body.nameserver;
  const zone = expectStatus(await onA.post('/zone', { zone: ZONE, mailaddr: 'hostmaster@one-publisher.example', nameservers: [ns.id] }), 201).body.zone;

  // A's run (kicked by the change) reaches PowerDNS and is held there, holding the zone's lease.
  await eventually('A to call PowerDNS', async () => gate.waiting === 1);
  b.deps.publisher!.kick();
  await b.deps.publisher!.idle();
  expect(gate.calls).toBe(1);
  expect(await queuedJobs()).toBeGreaterThan(0);

  gate.release();
  await a.deps.publisher!.idle();
  expect(gate.mostWaiting).toBe(1);
  await eventually('the zone on PowerDNS', async () => (await dig(pdns.dnsPort, ZONE, 'SOA')).length === 1);
  expect(await queuedJobs()).toBe(0);

  // With A idle, a change made on B is published by B.
  const onB = await b.login('alice@OnePublisher');
  const callsBefore = gate.calls;
  await addRecord(onB, zone.id, { owner: 'www', type: 'A', ttl: 300, address: '192.0.2.80' });
  await b.deps.publisher!.idle();
  expect(gate.calls).toBeGreaterThan(callsBefore);
  await eventually('www on PowerDNS', async () => JSON.stringify(await dig(pdns.dnsPort, `www.${ZONE}`, 'A')) === '["192.0.2.80"]');
}, 120_000);
