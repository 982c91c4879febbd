// One DNS message in, the answer message(s) out (several for a zone transfer). Never throws: anything unparseable
// is FORMERR (or silence when not even a header can be read), anything unexpected SERVFAIL, logged.
import * as packet from 'dns-packet';
import type { Deps } from '../deps';
import { tsigKeyByName, type TsigKeyInUse } from '../services/access/tsig-keys';
import { mayTransfer, zoneHolding, zoneSnapshot } from '../services/zones/zone-transfer';
import { CLASS, FormatError, OPCODE, RCODE, parseMessage, type RawMessage } from './message';
import { AnswerSigner, TSIG_ERROR, appendUnsignedTsig, tsigOf, verifyRequest, type TsigRecord } from './tsig';
import { soaRecord, wireRecord } from './wire';
import type { UpdateHandler } from './update-hook';
import { answerNotify } from './notify-in';
import { planIxfr } from './ixfr';
import { isExpiredSecondary } from '../queries/secondary-zones';

export interface Transport {
  protocol: 'udp' | 'tcp';
  address: string;
}

/** What handling gives back: the messages to send, in order. */
export type Answers = Buffer[];

const answerCodec = (packet as unknown as { answer: { encodingLength(a: unknown): number } }).answer;
const AA = 1 << 10;
const RD = 1 << 8;
/** Room left in a transfer message for its TSIG RR (the largest, hmac-sha512, is well under 200 octets). */
const TRANSFER_MESSAGE_BYTES = 16_000;
/** A UDP answer without EDNS (the listener truncates anything larger). */
const UDP_ANSWER_BYTES = 512;

interface Context {
  deps: Deps;
  transport: Transport;
  request: RawMessage;
  tsig?: TsigRecord;
  key?: TsigKeyInUse;
  signer?: AnswerSigner;
}

const className = (code: number) => (code === CLASS.ANY ? 'ANY' : code === 3 ? 'CH' : 'IN');

function header(request: RawMessage, rcode: number, extra = 0): number {
  return (request.opcode << 11) | (request.flags & RD) | rcode | extra;
}

function encode(ctx: Context, rcode: number, body: { answers?: unknown[]; authorities?: unknown[]; flags?: number } = {}): Buffer {
  const { request } = ctx;
  return packet.encode({
    id: request.id, type: 'response', flags: header(request, rcode, body.flags ?? 0),
    questions: request.questions.map((q) => ({ name: q.name || '.', type: q.type as packet.RecordType, class: className(q.classCode) as packet.RecordClass })),
    answers: (body.answers ?? []) as packet.Answer[], authorities: (body.authorities ?? []) as packet.Answer[],
  });
}

const nowSeconds = (ctx: Pick<Context, 'deps'>) => Math.floor(ctx.deps.clock.now().getTime() / 1000);

/** Signs an answer when the request was signed with a key that verified. */
function finish(ctx: Context, message: Buffer): Buffer {
  return ctx.signer ? ctx.signer.sign(message, nowSeconds(ctx)) : message;
}

function formErr(buf: Buffer): Answers {
  if (buf.length < 12 || (buf.readUInt16BE(2) & 0x8000) !== 0) return [];
  const out = Buffer.alloc(12);
  out.writeUInt16BE(buf.readUInt16BE(0), 0);
  out.writeUInt16BE(0x8000 | (buf.readUInt16BE(2) & 0x7800) | RCODE.FORMERR, 2);
  return [out];
}

export async function handleMessage(deps: Context['deps'], buf: Buffer, transport: Transport, update?: UpdateHandler): Promise<Answers> {
  let request: RawMessage;
  let tsig: TsigRecord | undefined;
  try {
    request = parseMessage(buf);
    tsig = tsigOf(request);
  } catch (err) {
    if (err instanceof FormatError || err instanceof RangeError) return formErr(buf);
    throw err;
  }
  if (request.qr) return []; // never answer an answer (no loops between servers)
  const ctx: Context = { deps, transport, request, tsig };
  try {
    if (tsig) {
      const key = await tsigKeyByName(deps, tsig.keyName, transport.address);
      const check = verifyRequest(buf, tsig, key, nowSeconds(ctx), deps.config.dns.fudgeSeconds);
      if (!check.ok) {
        const answer = encode(ctx, RCODE.NOTAUTH);
        if (check.signAnswer && key) return [new AnswerSigner(key, tsig, deps.config.dns.fudgeSeconds).sign(answer, nowSeconds(ctx), TSIG_ERROR.BADTIME)];
        return [appendUnsignedTsig(answer, tsig, check.error, nowSeconds(ctx))];
      }
      ctx.key = key;
      ctx.signer = new AnswerSigner(key!, tsig, deps.config.dns.fudgeSeconds);
    }
    switch (request.opcode) {
      case OPCODE.QUERY:
        return await query(ctx);
      case OPCODE.NOTIFY: {
        // A zone Keyzone keeps as a secondary (notify-in.ts); undefined: over the refusal limit, no answer.
        const rcode = await answerNotify(ctx.deps, request, ctx.key, transport.address);
        return rcode === undefined ? [] : [finish(ctx, encode(ctx, rcode, { flags: AA }))];
      }
      case OPCODE.UPDATE:
        return update ? [finish(ctx, await update(ctx.deps, request, buf, ctx.key, (rcode) => encode(ctx, rcode)))] : [finish(ctx, encode(ctx, RCODE.NOTIMP))];
      default:
        return [finish(ctx, encode(ctx, RCODE.NOTIMP))];
    }
  } catch (err) {
    if (err instanceof FormatError) return [finish(ctx, encode(ctx, RCODE.FORMERR))];
    deps.log.error({ err, peer: transport.address }, 'DNS message failed');
    return [finish(ctx, encode(ctx, RCODE.SERVFAIL))];
  }
}

async function query(ctx: Context): Promise<Answers> {
  const { request, deps } = ctx;
  if (request.questions.length !== 1) return [finish(ctx, encode(ctx, RCODE.FORMERR))];
  const q = request.questions[0]!;
  if (q.classCode !== CLASS.IN) return [finish(ctx, encode(ctx, RCODE.REFUSED))];
  // Keyzone is no resolver: a name in no zone it holds is REFUSED, recursion desired or not.
  const zone = await zoneHolding(deps.db, q.name);
  if (!zone) return [finish(ctx, encode(ctx, RCODE.REFUSED))];
  // A secondary zone past its SOA expire is not served (RFC 1034 §4.3.5), as BIND answers for one: SERVFAIL.
  if (await isExpiredSecondary(deps.db, zone.id)) return [finish(ctx, encode(ctx, RCODE.SERVFAIL))];
  if (q.type === 'SOA') {
    const snapshot = await zoneSnapshot(deps.db, zone.id);
    if (!snapshot) return [finish(ctx, encode(ctx, RCODE.REFUSED))];
    const soa = soaRecord(zone.name, zone.ttl, snapshot.soa);
    // Below the apex: no answer, the zone's SOA in the authority section: how nsupdate, lego and others find the zone
    // a name belongs to (NOERROR rather than NXDOMAIN: the name may be an empty non-terminal).
    if (q.name !== zone.name.replace(/\.$/, '')) return [finish(ctx, encode(ctx, RCODE.NOERROR, { flags: AA, authorities: [{ ...soa, ttl: Math.min(zone.ttl, snapshot.soa.minimum) }] }))];
    return [finish(ctx, encode(ctx, RCODE.NOERROR, { flags: AA, answers: [soa] }))];
  }
  if (q.type !== 'AXFR' && q.type !== 'IXFR') return [finish(ctx, encode(ctx, RCODE.REFUSED))];
  if (q.name !== zone.name.replace(/\.$/, '')) return [finish(ctx, encode(ctx, RCODE.NOTAUTH))];
  if (!(await mayTransfer(deps, zone, ctx.key, ctx.transport.address))) return [finish(ctx, encode(ctx, RCODE.REFUSED))];
  if (ctx.transport.protocol === 'udp') {
    // RFC 1995 §2: an IXFR over UDP that does not fit is answered with the SOA alone (try TCP); AXFR is TCP only.
    if (q.type === 'AXFR') return [finish(ctx, encode(ctx, RCODE.REFUSED))];
    return [await udpIxfr(ctx, zone.id)];
  }
  return transfer(ctx, zone.id);
}

/** The client's serial: the SOA an IXFR carries in its authority section. */
const ixfrSerial = (ctx: Context) => (ctx.request.authorities.find((r) => r.type === 'SOA')?.data as { serial?: number } | undefined)?.serial;

/** An IXFR over UDP: the incremental answer when it fits one datagram, else the SOA alone. */
async function udpIxfr(ctx: Context, zoneId: number): Promise<Buffer> {
  const serial = ixfrSerial(ctx);
  const plan = serial === undefined ? undefined : await planIxfr(ctx.deps.db, zoneId, serial);
  if (plan?.kind === 'records' && plan.records.length > 1) {
    // Signing changes the size: encode, sign, then measure (the signer is per request, so one signing only).
    const message = encode(ctx, RCODE.NOERROR, { flags: AA, answers: plan.records });
    if (message.length + (ctx.signer ? 200 : 0) <= UDP_ANSWER_BYTES) return finish(ctx, message);
  }
  const snapshot = plan?.snapshot ?? (await zoneSnapshot(ctx.deps.db, zoneId));
  return finish(ctx, encode(ctx, RCODE.NOERROR, { flags: AA, answers: snapshot ? [soaRecord(snapshot.zone.name, snapshot.zone.ttl, snapshot.soa)] : [] }));
}

/** The zone by RFC 5936: SOA, every record, SOA, in messages of ~16 kB, each signed in turn. */
async function transfer(ctx: Context, zoneId: number): Promise<Answers> {
  const snapshot = await zoneSnapshot(ctx.deps.db, zoneId);
  if (!snapshot) return [finish(ctx, encode(ctx, RCODE.REFUSED))];
  const { zone, soa } = snapshot;
  const q = ctx.request.questions[0]!;
  // IXFR (RFC 1995, ixfr.ts): the differences since the client's serial from the history, the SOA alone when the
  // client is current; the whole zone when the history cannot give the differences (§4 allows it).
  const clientSerial = ixfrSerial(ctx);
  if (q.type === 'IXFR' && clientSerial !== undefined) {
    const plan = await planIxfr(ctx.deps.db, zoneId, clientSerial);
    if (plan?.kind === 'records') return inMessages(ctx, plan.records);
    if (plan) ctx.deps.log.info({ zone: zone.name, from: clientSerial, to: plan.snapshot.soa.serial, reason: plan.reason }, 'IXFR answered with the whole zone');
  }
  const soaRr = soaRecord(zone.name, zone.ttl, soa);
  const records: unknown[] = [soaRr];
  for (const r of snapshot.records) {
    const wire = wireRecord(r);
    if (!wire) {
      ctx.deps.log.warn({ zone: zone.name, type: r.type }, 'zone transfer refused: a record type without a wire encoder');
      return [finish(ctx, encode(ctx, RCODE.SERVFAIL))];
    }
    records.push(wire);
  }
  records.push(soaRr);
  return inMessages(ctx, records);
}

/** A transfer's records in messages of ~16 kB, each signed in turn. */
function inMessages(ctx: Context, records: unknown[]): Answers {
  const messages: Buffer[] = [];
  let batch: unknown[] = [];
  let size = 0;
  const flush = () => {
    messages.push(finish(ctx, encode(ctx, RCODE.NOERROR, { flags: AA, answers: batch })));
    batch = [];
    size = 0;
  };
  for (const r of records) {
    const length = answerCodec.encodingLength(r);
    if (batch.length > 0 && size + length > TRANSFER_MESSAGE_BYTES) flush();
    batch.push(r);
    size += length;
  }
  if (batch.length > 0) flush();
  return messages;
}
