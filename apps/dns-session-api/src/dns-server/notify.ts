// NOTIFY (RFC 1996) to the secondaries dns.yml lists for a zone, whenever its serial changes (and once at start,
// as a primary does): the serials of those zones are compared every notify_poll_seconds, so every path that changes
// a zone (the API, a zone file import, the PowerDNS API, an UPDATE) is covered without hooking each one. Each
// secondary is sent the NOTIFY over UDP again every notify_retry_seconds until it answers (notify_retries more
// times at most); a newer serial replaces a pending one. A secondary listed with a TSIG key is sent the NOTIFY signed
// with it (RFC 8945, each send signed afresh) and only an answer signed with the same key over that request counts;
// when the key is not found (revoked, renamed), nothing is sent: an unsigned NOTIFY would be refused anyway.
import dgram from 'node:dgram';
import net from 'node:net';
import { randomInt } from 'node:crypto';
import * as packet from 'dns-packet';
import type { Deps } from '../deps';
import { tsigKeyByName } from '../services/access/tsig-keys';
import { FormatError, OPCODE, parseMessage } from './message';
import { ResponseVerifier, signRequest, type TsigKeyMaterial } from './tsig';

type Target = { address: string; port: number; key?: string };
/** What the answer must be signed over: the key and the MAC of each send still awaiting an answer. */
type Signed = { key: TsigKeyMaterial; macs: Buffer[] };

export class Notifier {
  private readonly notified = new Map<string, number>();
  private readonly pending = new Map<string, { id: number; timer: NodeJS.Timeout; serial: number; signed?: Signed }>();
  private readonly sockets: { udp4: dgram.Socket; udp6: dgram.Socket };
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(private readonly deps: Pick<Deps, 'db' | 'config' | 'log' | 'clock'>) {
    const onAnswer = (msg: Buffer, rinfo: dgram.RemoteInfo) => this.answered(msg, rinfo);
    this.sockets = { udp4: dgram.createSocket('udp4'), udp6: dgram.createSocket('udp6') };
    for (const s of Object.values(this.sockets)) {
      s.on('message', onAnswer);
      s.on('error', (err) => deps.log.warn({ err }, 'NOTIFY socket error'));
    }
  }

  start(): void {
    if (Object.keys(this.deps.config.dns.notify).length === 0) return;
    this.timer = setInterval(() => void this.poll(), this.deps.config.dns.notifyPollSeconds * 1000);
    this.timer.unref();
    void this.poll();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    for (const p of this.pending.values()) clearTimeout(p.timer);
    this.pending.clear();
    await Promise.all(Object.values(this.sockets).map((s) => new Promise<void>((resolve) => {
      try {
        s.close(() => resolve());
      } catch {
        resolve();
      }
    })));
  }

  /** Compares the listed zones' serials with the last notified ones. */
  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const names = Object.keys(this.deps.config.dns.notify);
      const zones = await this.deps.db.selectFrom('dns.zones').select(['name', 'serial']).where('name', 'in', names).where('deleted_at', 'is', null).execute();
      for (const zone of zones) {
        const serial = Number(zone.serial);
        if (this.notified.get(zone.name) === serial) continue;
        this.notified.set(zone.name, serial);
        for (const target of this.deps.config.dns.notify[zone.name] ?? []) this.send(zone.name, serial, target, this.deps.config.dns.notifyRetries);
      }
    } catch (err) {
      this.deps.log.warn({ err }, 'NOTIFY poll failed');
    } finally {
      this.polling = false;
    }
  }

  private send(zone: string, serial: number, target: Target, retriesLeft: number): void {
    const key = `${zone} ${target.address} ${target.port}`;
    const previous = this.pending.get(key);
    if (previous) clearTimeout(previous.timer);
    const same = previous && previous.serial === serial ? previous : undefined;
    const id = same ? same.id : randomInt(0, 65536);
    const timer = setTimeout(() => {
      // Sent again with the same id (still pending for this serial), so a late answer to any send counts.
      if (retriesLeft > 0) return this.send(zone, serial, target, retriesLeft - 1);
      this.pending.delete(key);
      this.deps.log.warn({ zone, serial, target }, 'NOTIFY unanswered after every retry');
    }, this.deps.config.dns.notifyRetrySeconds * 1000);
    timer.unref();
    const entry: { id: number; timer: NodeJS.Timeout; serial: number; signed?: Signed } = { id, timer, serial, signed: same?.signed };
    this.pending.set(key, entry);
    let message = packet.encode({
      id, type: 'query', flags: (OPCODE.NOTIFY << 11) | packet.AUTHORITATIVE_ANSWER, questions: [{ name: zone.replace(/\.$/, '') || '.', type: 'SOA', class: 'IN' }],
    });
    void (async () => {
      if (target.key) {
        const tsig = await tsigKeyByName(this.deps, target.key, undefined).catch((err: unknown) => {
          this.deps.log.warn({ err, zone, target }, 'NOTIFY TSIG key lookup failed');
          return undefined;
        });
        if (!tsig) {
          this.deps.log.warn({ zone, target }, 'NOTIFY not sent: its TSIG key is not in force');
          return;
        }
        const material = { name: tsig.name, algorithm: tsig.algorithm, secret: tsig.secret };
        const { signed, mac } = signRequest(message, material, Math.floor(this.deps.clock.now().getTime() / 1000), this.deps.config.dns.fudgeSeconds);
        message = signed;
        // Superseded while the key was looked up: the newer send owns the entry.
        if (this.pending.get(key) !== entry) return;
        entry.signed = { key: material, macs: [...(entry.signed?.key.name === material.name ? entry.signed.macs : []), mac].slice(-(this.deps.config.dns.notifyRetries + 1)) };
      }
      const socket = net.isIPv6(target.address) ? this.sockets.udp6 : this.sockets.udp4;
      socket.send(message, target.port, target.address, (err) => {
        if (err) this.deps.log.warn({ err, zone, target }, 'NOTIFY not sent');
      });
    })();
  }

  /** Whether a signed NOTIFY's answer is signed with its key over one of its sends; logs why not. */
  private verified(msg: Buffer, signed: Signed, target: string): boolean {
    const now = Math.floor(this.deps.clock.now().getTime() / 1000);
    let reason = 'unreadable';
    try {
      const parsed = parseMessage(msg);
      for (const mac of signed.macs) {
        try {
          new ResponseVerifier(signed.key, mac, this.deps.config.dns.fudgeSeconds).verify(msg, parsed, now);
          return true;
        } catch (err) {
          if (!(err instanceof FormatError)) throw err;
          reason = err.message;
        }
      }
    } catch (err) {
      if (!(err instanceof FormatError || err instanceof RangeError)) throw err;
    }
    this.deps.log.warn({ target, key: signed.key.name, reason }, 'NOTIFY answer ignored: its TSIG does not verify');
    return false;
  }

  private answered(msg: Buffer, rinfo: dgram.RemoteInfo): void {
    if (msg.length < 12 || (msg.readUInt16BE(2) & 0x8000) === 0 || ((msg.readUInt16BE(2) >> 11) & 0xf) !== OPCODE.NOTIFY) return;
    const id = msg.readUInt16BE(0);
    for (const [key, p] of this.pending) {
      const [, address, port] = key.split(' ');
      if (p.id === id && address === rinfo.address.replace(/^::ffff:/, '') && Number(port) === rinfo.port) {
        if (p.signed && !this.verified(msg, p.signed, `${address}:${port}`)) continue;
        clearTimeout(p.timer);
        this.pending.delete(key);
      }
    }
  }
}
