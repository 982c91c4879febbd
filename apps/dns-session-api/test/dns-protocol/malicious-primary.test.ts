// A malicious (or broken) outside primary, reviewed for issue 44: import-axfr and a secondary's refresh connect to an
// address an administrator gives, so whatever answers there is untrusted. This file's primary is a small TCP
// nameserver of its own that answers AXFR with crafted messages: a transfer that never ends (a message at a time,
// each before the idle timeout), another zone's SOA, names outside the zone asked for.
import net from 'node:net';
import * as packet from 'dns-packet';
import type { CookieClient } from '../helpers/client';
import { startTestServer, type TestServer } from '../helpers/server';
import { eventually } from '../helpers/nameservers';
import { expectStatus, newNameserver } from '../zones/dns-client';
import { SecondaryRefresher } from '../../src/services/zones/secondary/refresher';

jest.setTimeout(120_000);

type Answer = packet.Answer;
interface Primary { port: number; close: () => Promise<void> }

const soa = (name: string, serial = 2026112701): Answer => ({
  name, type: 'SOA', class: 'IN', ttl: 3600,
  data: { mname: `ns1.${name}`, rname: `hostmaster.${name}`, serial, refresh: 7200, retry: 3600, expire: 1209600, minimum: 300 },
});
const a = (name: string, address: string): Answer => ({ name, type: 'A', class: 'IN', ttl: 300, data: address });

/** A TCP nameserver that answers every query with `answer(query, send)`; `send` writes one framed message. */
async function startPrimary(answer: (query: packet.Packet, send: (answers: Answer[]) => boolean) => void): Promise<Primary> {
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      if (pending.length < 2 || pending.length < 2 + pending.readUInt16BE(0)) return;
      const query = packet.decode(pending.subarray(2, 2 + pending.readUInt16BE(0)));
      answer(query, (answers) => {
        if (socket.destroyed) return false;
        const msg = packet.encode({ id: query.id, type: 'response', flags: packet.AUTHORITATIVE_ANSWER, questions: query.questions, answers });
        const len = Buffer.alloc(2);
        len.writeUInt16BE(msg.length);
        socket.write(Buffer.concat([len, msg]));
        return true;
      });
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return {
    port: (srv.address() as net.AddressInfo).port,
    close: () => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); srv.close(() => resolve()); }),
  };
}

let server: TestServer;
let admin: CookieClient;
let refresher: SecondaryRefresher;
const primaries: Primary[] = [];

beforeAll(async () => {
  // One PowerDNS call's timeout is 1 s here: an import's transfer may take 3 s at most.
  server = await startTestServer({ configure: (deps) => ({ ...deps, config: { ...deps.config, publish: { ...deps.config.publish, timeoutSeconds: 1 } } }) });
  await server.seedUser({ group: 'Hostile', username: 'root', isAdmin: true });
  admin = await server.login('root@Hostile');
  await newNameserver(admin, { name: 'ns1.hostile.example.' });
  const deps = { ...server.deps, config: { ...server.deps.config, dns: { ...server.deps.config.dns, secondaryPollSeconds: 0.2, secondaryMinRefreshSeconds: 1 } } };
  refresher = new SecondaryRefresher(deps);
  server.deps.secondaries = refresher;
  refresher.start();
});
afterAll(async () => {
  await refresher?.stop();
  for (const p of primaries) await p.close();
  await server?.close();
});

async function primary(answer: Parameters<typeof startPrimary>[0]): Promise<number> {
  const p = await startPrimary(answer);
  primaries.push(p);
  return p.port;
}

test('a primary that keeps sending (each message before the idle timeout) cannot hold an import past its time', async () => {
  const port = await primary((q, send) => {
    send([soa(q.questions![0]!.name)]);
    const timer = setInterval(() => { if (!send([a(`x.${q.questions![0]!.name}`, '192.0.2.1')])) clearInterval(timer); }, 200);
  });
  const started = Date.now();
  const res = await admin.post('/zone/import-axfr', { zone: 'endless.example.', server: '127.0.0.1', port });
  expect(res.status).toBe(400);
  expect(res.body.message).toMatch(/in time/);
  expect(Date.now() - started).toBeLessThan(20_000);
  expect((await admin.get('/zone?zone=endless.example')).body.zone).toEqual([]);
});

test('a transfer whose SOA is another zone\'s is refused', async () => {
  const port = await primary((_q, send) => {
    send([soa('victim.example'), a('www.victim.example', '192.0.2.66'), soa('victim.example')]);
  });
  const res = await admin.post('/zone/import-axfr', { zone: 'asked.example.', server: '127.0.0.1', port });
  expect(res.status).toBe(400);
  expect((await admin.get('/zone?zone=asked.example')).body.zone).toEqual([]);
});

test('names outside the zone asked for are refused, not imported', async () => {
  const port = await primary((q, send) => {
    const zone = q.questions![0]!.name;
    send([soa(zone), a(`www.${zone}`, '192.0.2.1'), a('www.victim.example', '192.0.2.66'), soa(zone)]);
  });
  const res = await admin.post('/zone/import-axfr', { zone: 'bailiwick.example.', server: '127.0.0.1', port });
  expect(res.status).toBe(400);
  expect(res.body.message).toMatch(/www\.victim\.example\..*outside_zone/);
  expect((await admin.get('/zone?zone=bailiwick.example')).body.zone).toEqual([]);
});

test('a primary that answers the refresher\'s SOA query a byte at a time does not hold a refresh slot for ever', async () => {
  // It announces a full-size answer, then sends it a byte every 200 ms (each before the 1 s idle timeout).
  const trickler = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => {
      socket.write(Buffer.from([0xff, 0xff]));
      const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write(Buffer.from([0]))), 200);
      socket.on('close', () => clearInterval(timer));
    });
  });
  await new Promise<void>((resolve) => trickler.listen(0, '127.0.0.1', resolve));
  primaries.push({ port: (trickler.address() as net.AddressInfo).port, close: () => new Promise<void>((resolve) => trickler.close(() => resolve())) });
  const zone = expectStatus(await admin.post('/zone', { zone: 'trickle.example.' }), 201).body.zone as { id: number };
  expectStatus(await admin.put(`/zone/${zone.id}/secondary`, { address: '127.0.0.1', port: (trickler.address() as net.AddressInfo).port }), 200);
  await eventually('the refresh to give up on the trickling primary', async () => {
    const state = (await admin.get(`/zone/${zone.id}/secondary`)).body.secondary as { last_error: string | null };
    return /in time/.test(state.last_error ?? '');
  }, 30_000);
});

test('a transfer cannot place a zone under another group\'s zone nor write below another group\'s child zone', async () => {
  await server.seedUser({ group: 'Owner', username: 'root', isAdmin: true });
  const owner = await server.login('root@Owner');
  await newNameserver(owner, { name: 'ns1.owned.example.' });
  expectStatus(await owner.post('/zone', { zone: 'owned.example.' }), 201);
  expectStatus(await owner.post('/zone', { zone: 'child.hostparent.example.' }), 201);
  const port = await primary((q, send) => {
    const zone = q.questions![0]!.name;
    send([soa(zone), a(`www.${zone}`, '192.0.2.1'), a(`www.child.${zone}`, '192.0.2.66'), soa(zone)]);
  });
  const under = await admin.post('/zone/import-axfr', { zone: 'sub.owned.example.', server: '127.0.0.1', port });
  expect(under.status).toBeGreaterThanOrEqual(400);
  expect(under.status).toBeLessThan(500);
  const over = await admin.post('/zone/import-axfr', { zone: 'hostparent.example.', server: '127.0.0.1', port });
  expect(over.status).toBeGreaterThanOrEqual(400);
  expect(over.status).toBeLessThan(500);
  expect((await owner.get('/zone?zone=sub.owned.example')).body.zone).toEqual([]);
});
