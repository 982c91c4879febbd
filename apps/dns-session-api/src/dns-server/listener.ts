// The DNS listener (issue 44; dns.yml, off by default): UDP and TCP on one address and port. Limits: UDP answers
// per client address per second (a token bucket; over it the query is dropped, so Keyzone is a poor amplifier),
// concurrent zone transfers (over it REFUSED), TCP connections (in all and per client address) and their idle time. Every message is handled
// inside a catch: nothing received can take the process down.
import dgram from 'node:dgram';
import net from 'node:net';
import type { Deps } from '../deps';
import { handleMessage, type Transport } from './handler';
import { Notifier } from './notify';
import { handleUpdate } from './update';
import type { UpdateHandler } from './update-hook';

const MAX_TCP_CONNECTIONS = 200;
/** One client cannot take every connection: the rest of the world still gets transfers and updates. */
const MAX_TCP_PER_CLIENT = 20;
const TCP_IDLE_MS = 30_000;
const MAX_UDP_ANSWER = 512;

export interface DnsListener {
  udpPort: number | undefined;
  tcpPort: number | undefined;
  close(): Promise<void>;
}

type ListenerDeps = Deps;

function isTransfer(buf: Buffer): boolean {
  // The question's type follows its name: cheap look without a full parse, refined by the handler.
  try {
    let o = 12;
    while (o < buf.length && buf[o] !== 0) o += buf[o]! + 1;
    const type = buf.readUInt16BE(o + 1);
    return type === 252 || type === 251;
  } catch {
    return false;
  }
}

export async function startDnsListener(deps: ListenerDeps, update: UpdateHandler = handleUpdate): Promise<DnsListener> {
  const { dns } = deps.config;
  const buckets = new Map<string, { tokens: number; at: number }>();
  let transfers = 0;
  const handle = async (buf: Buffer, transport: Transport): Promise<Buffer[]> => {
    try {
      return await handleMessage(deps, buf, transport, update);
    } catch (err) {
      deps.log.error({ err, peer: transport.address }, 'DNS message failed');
      return [];
    }
  };

  const takeUdpToken = (address: string): boolean => {
    const now = Date.now();
    const rate = dns.udpAnswersPerClientPerSecond;
    if (buckets.size > 100_000) buckets.clear();
    const b = buckets.get(address) ?? { tokens: rate, at: now };
    b.tokens = Math.min(rate, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    buckets.set(address, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  };

  const notifier = new Notifier(deps);
  const portOf = (a: unknown) => (a && typeof a === 'object' && 'port' in a ? Number((a as { port: number }).port) : undefined);
  let tcp: net.Server | undefined;
  const sockets = new Set<net.Socket>();
  const perClient = new Map<string, number>();
  if (dns.tcp) {
    tcp = net.createServer((socket) => {
      const address = socket.remoteAddress ?? '';
      const fromClient = perClient.get(address) ?? 0;
      if (sockets.size >= MAX_TCP_CONNECTIONS || fromClient >= MAX_TCP_PER_CLIENT) return socket.destroy();
      sockets.add(socket);
      perClient.set(address, fromClient + 1);
      socket.setTimeout(TCP_IDLE_MS, () => socket.destroy());
      socket.on('error', () => socket.destroy());
      socket.on('close', () => {
        sockets.delete(socket);
        const left = (perClient.get(address) ?? 1) - 1;
        if (left > 0) perClient.set(address, left);
        else perClient.delete(address);
      });
      let pending = Buffer.alloc(0);
      let chain = Promise.resolve();
      socket.on('data', (chunk) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 2) {
          const length = pending.readUInt16BE(0);
          if (pending.length < 2 + length) break;
          const message = Buffer.from(pending.subarray(2, 2 + length));
          pending = pending.subarray(2 + length);
          // Messages on one connection are answered in order (a transfer's messages must not interleave).
          chain = chain.then(async () => {
            const transfer = isTransfer(message);
            if (transfer && transfers >= dns.maxTransfers) {
              const refused = refusedUnread(message);
              if (refused) writeFramed(socket, [refused]);
              return;
            }
            if (transfer) transfers++;
            try {
              writeFramed(socket, await handle(message, { protocol: 'tcp', address }));
            } finally {
              if (transfer) transfers--;
            }
          });
        }
        if (pending.length > 65_537) socket.destroy();
      });
    });
    tcp.on('error', (err) => deps.log.warn({ err }, 'DNS TCP listener error'));
    await new Promise<void>((resolve, reject) => {
      tcp!.once('error', reject);
      tcp!.listen(dns.port, dns.address, () => { tcp!.off('error', reject); resolve(); });
    });
  }

  // Port 0 (tests): UDP takes the port TCP was given, so one port serves both.
  const udpPort = dns.port === 0 && tcp ? portOf(tcp.address()) ?? 0 : dns.port;
  let udp: dgram.Socket | undefined;
  if (dns.udp) {
    udp = dgram.createSocket(net.isIPv6(dns.address) ? 'udp6' : 'udp4');
    udp.on('error', (err) => deps.log.warn({ err }, 'DNS UDP socket error'));
    udp.on('message', (buf, rinfo) => {
      if (!takeUdpToken(rinfo.address)) return;
      // An IXFR over UDP reads the zone and its history as one over TCP does, and a UDP source can be forged (an
      // allowed peer's address): it counts towards max_transfers too, beyond which it is refused unread.
      const transfer = isTransfer(buf);
      if (transfer && transfers >= dns.maxTransfers) {
        const refused = refusedUnread(buf);
        if (refused) udp!.send(refused, rinfo.port, rinfo.address);
        return;
      }
      if (transfer) transfers++;
      void handle(buf, { protocol: 'udp', address: rinfo.address }).finally(() => {
        if (transfer) transfers--;
      }).then((answers) => {
        for (let answer of answers.slice(0, 1)) {
          if (answer.length > MAX_UDP_ANSWER) {
            // Truncated: the header alone with TC set; the client asks again over TCP.
            answer = Buffer.from(answer.subarray(0, 12));
            answer.writeUInt16BE(answer.readUInt16BE(2) | 0x0200, 2);
            answer.fill(0, 4, 12);
          }
          udp!.send(answer, rinfo.port, rinfo.address);
        }
      });
    });
    await new Promise<void>((resolve, reject) => {
      udp!.once('error', reject);
      udp!.bind(udpPort, dns.address, () => { udp!.off('error', reject); resolve(); });
    });
  }

  notifier.start();
  return {
    udpPort: udp ? portOf(udp.address()) : undefined,
    tcpPort: tcp ? portOf(tcp.address()) : undefined,
    async close() {
      await notifier.stop();
      for (const s of sockets) s.destroy();
      await Promise.all([
        udp && new Promise<void>((resolve) => udp!.close(() => resolve())),
        tcp && new Promise<void>((resolve) => tcp!.close(() => resolve())),
      ]);
    },
  };
}

function writeFramed(socket: net.Socket, messages: Buffer[]): void {
  if (socket.destroyed) return;
  for (const m of messages) {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(m.length);
    socket.write(Buffer.concat([length, m]));
  }
}

/**
 * REFUSED for a message not read (over the transfer limit): its header with QR and RCODE set and every count zero,
 * since the question is not echoed; undefined for a message too short to have a header.
 */
function refusedUnread(message: Buffer): Buffer | undefined {
  if (message.length < 12) return undefined;
  const refused = Buffer.from(message.subarray(0, 12));
  refused.writeUInt16BE(0x8000 | (refused.readUInt16BE(2) & 0x7900) | 5, 2);
  refused.fill(0, 4, 12);
  return refused;
}
