// NOTIFY (RFC 1996) from Keyzone's DNS listener (issue 44): a secondary listed in dns.yml for a zone is told when the
// zone's serial changes (and once at start); an unanswered NOTIFY is sent again, with the same id, until answered
// or notify_retries runs out.
import dgram from 'node:dgram';
import * as packet from 'dns-packet';
import type { CookieClient } from '../helpers/client';
import { eventually } from '../helpers/nameservers';
import { startTestServer, type TestServer } from '../helpers/server';
import { addRecord, newNameserver, newZone, type Json } from '../zones/dns-client';
import { startDnsListener, type DnsListener } from '../../src/dns-server/listener';

jest.setTimeout(120_000);

let server: TestServer;
let listener: DnsListener;
let alice: CookieClient;
let zone: Json;
let silent: Json;
const answering = dgram.createSocket('udp4');
const mute = dgram.createSocket('udp4');
const seen: Array<{ id: number; opcode: string; aa: boolean; question: string }> = [];
const muteSeen: number[] = [];
let answerFromSecond = true;
let log: TestServer['deps']['log'];
let warn: jest.SpyInstance;

beforeAll(async () => {
  server = await startTestServer();
  await server.seedUser({ group: 'Ntf', username: 'alice' });
  alice = await server.login('alice@Ntf');
  const ns = await newNameserver(alice, { name: 'ns1.ntf.test.' });
  zone = await newZone(alice, { nameservers: [ns.id] });
  silent = await newZone(alice, { nameservers: [ns.id] });
  await new Promise<void>((resolve) => answering.bind(0, '127.0.0.1', resolve));
  await new Promise<void>((resolve) => mute.bind(0, '127.0.0.1', resolve));
  // The fake secondary answers a NOTIFY only the second time it sees its id (the first is "lost").
  const ids = new Map<number, number>();
  answering.on('message', (msg, rinfo) => {
    const m = packet.decode(msg);
    seen.push({ id: m.id ?? 0, opcode: (m as { opcode?: string }).opcode ?? '', aa: Boolean(m.flag_aa), question: `${m.questions?.[0]?.name} ${m.questions?.[0]?.type}` });
    const count = (ids.get(m.id ?? 0) ?? 0) + 1;
    ids.set(m.id ?? 0, count);
    if (count >= 2 || !answerFromSecond) {
      answering.send(packet.encode({ id: m.id, type: 'response', flags: (4 << 11) | packet.AUTHORITATIVE_ANSWER, questions: m.questions }), rinfo.port, rinfo.address);
    }
  });
  mute.on('message', (msg) => muteSeen.push(msg.readUInt16BE(0)));
  const port = (s: dgram.Socket) => s.address().port;
  log = server.deps.log.child({});
  warn = jest.spyOn(log, 'warn');
  listener = await startDnsListener({
    ...server.deps,
    log,
    config: {
      ...server.deps.config,
      dns: {
        ...server.deps.config.dns, enabled: true, port: 0, notifyPollSeconds: 0.1, notifyRetrySeconds: 0.3, notifyRetries: 3,
        notify: { [zone.zone as string]: [{ address: '127.0.0.1', port: port(answering) }], [silent.zone as string]: [{ address: '127.0.0.1', port: port(mute) }] },
      },
    },
  });
}, 120_000);
afterAll(async () => {
  await listener?.close();
  answering.close();
  mute.close();
  await server?.close();
});

describe('NOTIFY', () => {
  it('is sent at start and again, with the same id, until answered', async () => {
    await eventually('the NOTIFY to be sent again', async () => seen.length >= 2);
    expect(seen[0]).toEqual({ id: seen[0]!.id, opcode: 'NOTIFY', aa: true, question: `${(zone.zone as string).replace(/\.$/, '')} SOA` });
    expect(seen[1]!.id).toBe(seen[0]!.id);
  });

  it('is sent when the zone changes', async () => {
    answerFromSecond = false;
    const before = seen.length;
    const firstId = seen[0]!.id;
    await addRecord(alice, zone.id, { owner: 'www', type: 'A', ttl: 300, address: '192.0.2.1' });
    await eventually('a NOTIFY for the new serial', async () => seen.slice(before).some((s) => s.id !== firstId));
  });

  it('gives up on a secondary that never answers after notify_retries more sends', async () => {
    const gaveUp = () => warn.mock.calls.some((c) => c[1] === 'NOTIFY unanswered after every retry');
    await eventually('the notifier to give up', async () => gaveUp());
    // The first send and notify_retries (3) more, all with one id.
    expect(muteSeen).toHaveLength(4);
    expect(new Set(muteSeen).size).toBe(1);
  });
});
