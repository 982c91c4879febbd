// Keyzone speaking DNS (issue 44): TSIG keys made through the API, the listener answering dig's SOA queries and
// zone transfers (TSIG-signed, refused without the key, from a disallowed address, for a zone it does not hold),
// the TSIG errors (bad signature, time outside the window), and thousands of random packets that must not stop it.
import { execFile } from 'node:child_process';
import dgram from 'node:dgram';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { CookieClient } from '../helpers/client';
import { startTestServer, type TestServer } from '../helpers/server';
import { addRecord, expectStatus, newNameserver, newZone, type Json } from '../zones/dns-client';
import { eventually } from '../helpers/nameservers';
import { startDnsListener, type DnsListener } from '../../src/dns-server/listener';

const run = promisify(execFile);
jest.setTimeout(120_000);

let server: TestServer;
let listener: DnsListener;
let alice: CookieClient;
let bob: CookieClient;
let aliceId: number;
let bobId: number;
let zone: Json;
let open: Json;
let port: number;

beforeAll(async () => {
  server = await startTestServer();
  ({ userId: aliceId } = await server.seedUser({ group: 'Xfr', username: 'alice' }));
  ({ userId: bobId } = await server.seedUser({ group: 'Other', username: 'bob' }));
  alice = await server.login('alice@Xfr');
  bob = await server.login('bob@Other');
  const ns = await newNameserver(alice, { name: 'ns1.xfr.test.' });
  zone = await newZone(alice, { nameservers: [ns.id] });
  open = await newZone(alice, { nameservers: [ns.id] });
  await addRecord(alice, zone.id, { owner: 'www', type: 'A', ttl: 300, address: '192.0.2.10' });
  await addRecord(alice, zone.id, { owner: '@', type: 'MX', ttl: 300, preference: 10, exchange: 'mail.example.net.' });
  await addRecord(alice, zone.id, { owner: 'txt', type: 'TXT', ttl: 300, data: '"hello" "world"' });
  const { deps } = server;
  listener = await startDnsListener({
    ...deps,
    config: { ...deps.config, dns: { ...deps.config.dns, enabled: true, port: 0, transferPeers: { [open.zone as string]: ['127.0.0.1'] } } },
  });
  port = listener.tcpPort!;
}, 120_000);
afterAll(async () => {
  await listener?.close();
  await server?.close();
});

async function key(client: CookieClient, userId: number, body: Record<string, unknown>): Promise<Json> {
  return expectStatus(await client.post(`/user/${userId}/tsig-keys`, body), 201).body.tsig_key;
}

async function dig(...args: string[]): Promise<string> {
  const { stdout } = await run('dig', ['@127.0.0.1', '-p', String(port), '+time=10', '+tries=1', ...args]).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return stdout;
}

const nameOf = (z: Json) => (z.zone as string).replace(/\.$/, '');
const yOf = (k: Json, secret = k.secret as string) => `${k.algorithm as string}:${k.name as string}:${secret}`;

describe('TSIG keys through the API', () => {
  it('are created (the secret once), listed without it, kept sealed, unique by name, and revoked', async () => {
    const created = await key(alice, aliceId, { name: 'Ci.Example.', algorithm: 'hmac-sha512', types: ['txt'], names: ['_acme-challenge.*'] });
    expect(created).toMatchObject({ name: 'ci.example', algorithm: 'hmac-sha512', user_id: aliceId, allow_transfer: false, types: ['TXT'] });
    expect(Buffer.from(created.secret as string, 'base64')).toHaveLength(64);
    const listed = expectStatus(await alice.get(`/user/${aliceId}/tsig-keys`), 200).body.tsig_keys as Json[];
    expect(listed.find((k) => k.id === created.id)).not.toHaveProperty('secret');
    const stored = await server.deps.db.selectFrom('dns.tsig_keys').select('secret_sealed').where('id', '=', created.id as number).executeTakeFirstOrThrow();
    expect(stored.secret_sealed).not.toContain(created.secret as string);
    expect(stored.secret_sealed).not.toContain(Buffer.from(created.secret as string, 'base64').toString('hex'));
    expectStatus(await alice.post(`/user/${aliceId}/tsig-keys`, { name: 'ci.example' }), 409);
    expectStatus(await alice.delete(`/user/${aliceId}/tsig-keys/${created.id}`), 200);
    expectStatus(await alice.delete(`/user/${aliceId}/tsig-keys/${created.id}`), 404);
    await key(alice, aliceId, { name: 'ci.example' }); // the name is free again
  });

  it('follow the API-token permission rules and refuse bad input', async () => {
    expectStatus(await bob.get(`/user/${aliceId}/tsig-keys`), 403);
    expectStatus(await bob.post(`/user/${aliceId}/tsig-keys`, { name: 'x' }), 403);
    expectStatus(await bob.post(`/user/${bobId}/tsig-keys`, { name: 'x', zones: [zone.id] }), 403);
    for (const body of [{ name: '' }, { name: 'bad name' }, { name: 'x', algorithm: 'hmac-md5' }, { name: 'x', types: ['NOPE'] }, { name: 'x', extra: 1 }]) {
      expectStatus(await alice.post(`/user/${aliceId}/tsig-keys`, body), 400);
    }
  });
});

describe('the DNS listener', () => {
  let transferKey: Json;
  let updateOnlyKey: Json;
  beforeAll(async () => {
    transferKey = await key(alice, aliceId, { name: 'xfr.alice', algorithm: 'hmac-sha256', allow_transfer: true, zones: [zone.id] });
    updateOnlyKey = await key(alice, aliceId, { name: 'acme.alice', algorithm: 'hmac-sha256', types: ['TXT'] });
  });

  it('answers SOA queries for its zones over UDP and TCP, signed when asked with a key', async () => {
    const udp = await dig(nameOf(zone), 'SOA', '+norec');
    expect(udp).toMatch(/status: NOERROR/);
    expect(udp).toMatch(/flags: qr aa;/);
    expect(udp).toMatch(new RegExp(`${nameOf(zone)}\\.\\s+\\d+\\s+IN\\s+SOA\\s+ns1\\.xfr\\.test\\.`));
    expect(await dig('+tcp', nameOf(zone), 'SOA')).toMatch(/status: NOERROR/);
    // Below the apex: no answer, the zone's SOA as authority (how clients find the zone of a name).
    const below = await dig(`_acme-challenge.www.${nameOf(zone)}`, 'SOA');
    expect(below).toMatch(/status: NOERROR/);
    expect(below).toMatch(/ANSWER: 0, AUTHORITY: 1/);
    expect(below).toMatch(new RegExp(`AUTHORITY SECTION:\\n${nameOf(zone)}\\.\\s+\\d+\\s+IN\\s+SOA`));
    const signed = await dig('-y', yOf(transferKey), nameOf(zone), 'SOA');
    expect(signed).toMatch(/status: NOERROR/);
    expect(signed).toMatch(/xfr\.alice\.\s+0\s+ANY\s+TSIG\s+hmac-sha256\./);
    expect(signed).not.toMatch(/failure|BADSIG|BADKEY|Couldn't verify|could not be validated/i);
  });

  it('refuses names in no zone it holds (no recursion) and other questions', async () => {
    expect(await dig('example.org', 'SOA')).toMatch(/status: REFUSED/);
    expect(await dig('www.google.com', 'A', '+rec')).toMatch(/status: REFUSED/);
  });

  it('transfers a zone by AXFR to a key allowed to, every message signed', async () => {
    const out = await dig('-y', yOf(transferKey), nameOf(zone), 'AXFR');
    expect(out).not.toMatch(/Transfer failed|failure|Couldn't verify|could not be validated/i);
    const soa = out.match(/\sIN\s+SOA\s/g) ?? [];
    expect(soa).toHaveLength(2);
    expect(out).toMatch(new RegExp(`www\\.${nameOf(zone)}\\.\\s+300\\s+IN\\s+A\\s+192\\.0\\.2\\.10`));
    expect(out).toMatch(/IN\s+MX\s+10 mail\.example\.net\./);
    expect(out).toMatch(/IN\s+TXT\s+"hello" "world"/);
    expect(out).toMatch(/IN\s+NS\s+ns1\.xfr\.test\./);
    expect(out).toMatch(/TSIG\s+hmac-sha256\./);
  });

  it('refuses a transfer without a key, with a key not allowed to, or of a zone outside the key', async () => {
    expect(await dig(nameOf(zone), 'AXFR')).toMatch(/Transfer failed/);
    expect(await dig('-y', yOf(updateOnlyKey), nameOf(zone), 'AXFR')).toMatch(/Transfer failed/);
    expect(await dig('-y', yOf(transferKey), nameOf(open), 'AXFR')).toMatch(/Transfer failed/);
  });

  it('transfers to an address listed for the zone in dns.yml without a key', async () => {
    const out = await dig(nameOf(open), 'AXFR');
    expect(out).not.toMatch(/Transfer failed/);
    expect(out.match(/\sIN\s+SOA\s/g)).toHaveLength(2);
  });

  it('answers IXFR at the current serial with the SOA alone, behind it with the difference (ixfr.test.ts), and a full transfer for a serial it does not know (RFC 1995 §4)', async () => {
    const serial = Number(/\sSOA\s+\S+\s+\S+\s+(\d+)/.exec(await dig(nameOf(zone), 'SOA'))![1]);
    const current = await dig('-y', yOf(transferKey), nameOf(zone), `IXFR=${serial}`);
    expect(current.match(/\sIN\s+SOA\s/g)).toHaveLength(1);
    // The last change added the TXT record: new SOA, old SOA, new SOA, the TXT, new SOA.
    const behind = await dig('-y', yOf(transferKey), nameOf(zone), `IXFR=${serial - 1}`);
    expect(behind.match(/\sIN\s+SOA\s/g)).toHaveLength(4);
    expect(behind).toMatch(/IN\s+TXT\s+"hello" "world"/);
    expect(behind).not.toMatch(/IN\s+A\s+192\.0\.2\.10/);
    const unknown = await dig('-y', yOf(transferKey), nameOf(zone), 'IXFR=1');
    expect(unknown.match(/\sIN\s+SOA\s/g)).toHaveLength(2);
    expect(unknown).toMatch(/IN\s+A\s+192\.0\.2\.10/);
  });

  it('answers NOTAUTH with BADSIG for a wrong secret, BADKEY for an unknown key, BADTIME outside the window', async () => {
    const wrong = await dig('-y', yOf(transferKey, randomBytes(32).toString('base64')), nameOf(zone), 'SOA');
    expect(wrong).toMatch(/status: NOTAUTH/);
    expect(wrong).toMatch(/TSIG\s+hmac-sha256\. \d+ 300 0 \d+ BADSIG 0/);
    const unknown = await dig('-y', `hmac-sha256:nobody.here:${randomBytes(32).toString('base64')}`, nameOf(zone), 'SOA');
    expect(unknown).toMatch(/status: NOTAUTH/);
    expect(unknown).toMatch(/BADKEY/);
    server.clock.advance(3600);
    try {
      const late = await dig('-y', yOf(transferKey), nameOf(zone), 'SOA');
      expect(late).toMatch(/status: NOTAUTH/);
      // Signed (RFC 8945 §5.2.3), with the server's time as Other Data.
      expect(late).toMatch(/TSIG\s+hmac-sha256\. \d+ 300 32 \S+ \d+ BADTIME 6 \S+/);
      expect(late).toMatch(/clocks are unsynchronized/);
    } finally {
      server.clock.advance(-3600);
    }
  });

  it('survives thousands of random and mutated packets over UDP and TCP, answering FORMERR where it can', async () => {
    const valid = (await import('dns-packet')).encode({ type: 'query', id: 7, questions: [{ type: 'SOA', name: nameOf(zone) }] });
    const packets: Buffer[] = [];
    for (let i = 0; i < 3000; i++) {
      if (i % 3 === 0) packets.push(randomBytes(Math.floor(Math.random() * 80)));
      else {
        const p = Buffer.from(valid);
        for (let j = 0; j < 1 + (i % 5); j++) p[Math.floor(Math.random() * p.length)] = Math.floor(Math.random() * 256);
        // A third of them as UPDATEs (opcode 5), so the update path's parsing is thrown at too.
        if (i % 3 === 1) p.writeUInt16BE((p.readUInt16BE(2) & ~0x7800) | (5 << 11), 2);
        packets.push(i % 7 === 0 ? Buffer.concat([p, randomBytes(i % 40)]) : p);
      }
    }
    const socket = dgram.createSocket('udp4');
    let answers = 0;
    socket.on('message', () => { answers++; });
    for (const [i, p] of packets.entries()) {
      socket.send(p, port, '127.0.0.1');
      if (i % 40 === 39) await new Promise((r) => setTimeout(r, 5));
    }
    await new Promise<void>((resolve) => {
      const tcp = net.connect(port, '127.0.0.1', () => {
        for (const p of packets.slice(0, 1000)) {
          const length = Buffer.alloc(2);
          length.writeUInt16BE(p.length);
          tcp.write(Buffer.concat([length, p]));
        }
        tcp.end();
      });
      tcp.on('data', () => undefined);
      tcp.on('error', () => resolve());
      tcp.on('close', () => resolve());
    });
    // A header promising a question that is not there: FORMERR with the query's id.
    const formerr = await new Promise<Buffer>((resolve) => {
      socket.removeAllListeners('message');
      // Sent again until answered: the burst above has used up this client's UDP answers for the moment.
      const send = () => socket.send(Buffer.from([0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 3, 0x61]), port, '127.0.0.1');
      const again = setInterval(send, 250);
      socket.once('message', (m) => { clearInterval(again); resolve(m); });
      send();
    });
    expect(formerr.readUInt16BE(0)).toBe(0x1234);
    expect(formerr.readUInt16BE(2) & 0x800f).toBe(0x8001);
    socket.close();
    expect(answers).toBeGreaterThan(0);
    // Still answering, both ways.
    expect(await dig(nameOf(zone), 'SOA')).toMatch(/status: NOERROR/);
    expect(await dig('+tcp', nameOf(zone), 'SOA')).toMatch(/status: NOERROR/);
  });

  it('keeps one client to 20 TCP connections, and takes it again once they close', async () => {
    const open = (): Promise<net.Socket> => new Promise((resolve, reject) => {
      const c = net.connect(port, '127.0.0.1', () => resolve(c));
      c.on('error', reject);
    });
    const held = await Promise.all(Array.from({ length: 20 }, open));
    const extra = await open();
    await new Promise<void>((resolve) => extra.on('close', () => resolve()));
    for (const c of held) c.destroy();
    await eventually('the connections to be counted closed', async () => (await dig('+tcp', nameOf(zone), 'SOA')).includes('status: NOERROR'));
  });
});
