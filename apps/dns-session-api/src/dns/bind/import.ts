// BIND zone-file importer: $ORIGIN, $TTL, "@", relative names, omitted owner/TTL/class, parentheses,
// quoted strings with escapes, comments. It never stops at the first problem: every bad line is counted, the
// first `maxErrors` are returned with their number and reason, and the caller imports nothing unless there
// are none. It is async and gives the event loop back every few milliseconds, so other requests do not wait
// behind a large file; memory follows the records kept, not the errors (issue 12).
import { ZoneChecker } from '../check-zone';
import { nextTurn } from '../slices';
import { checkName, isAbsolute, normalizeName, toAbsolute } from '../names';
import { validateRecord, ZoneRecord } from '../records';
import { Soa } from '../soa';
import { isRecordType, rdataFromBind, SIGNER_TYPES, unsupportedTypeReason } from '../types';
import { tokenizeEntries } from './tokenize';

export interface LineError {
  line: number;
  message: string;
}

export interface ImportedRecord extends ZoneRecord {
  line: number;
}

export interface ImportResult {
  zone: string;
  soa?: Soa & { ttl: number; line: number };
  defaultTtl?: number;
  /** Every valid record, in file order; empty when `onRecord` took them. */
  records: ImportedRecord[];
  /** The first `maxErrors` problems, by line. */
  errors: LineError[];
  /** How many problems there are in all. */
  errorCount: number;
}

export interface ImportOptions {
  /** Problems listed (the rest are only counted); default 100. */
  maxErrors?: number;
  /** Longest stretch of parsing between two turns of the event loop (ms); default 10. */
  sliceMs?: number;
  /**
   * Takes each valid record as it is parsed, in file order, instead of the result keeping them (a large zone is
   * then never whole in memory). The zone rules still see every record; their errors arrive with the result.
   */
  onRecord?: (record: ImportedRecord) => void | Promise<void>;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** BIND TTL syntax: "3600", "1h", "1h30m", "2W". Undefined when it is not one. */
export function parseTtl(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  if (!/^(\d+[smhdw])+$/i.test(text)) return undefined;
  let total = 0;
  for (const m of text.toLowerCase().matchAll(/(\d+)([smhdw])/g)) total += Number(m[1]) * (UNIT_SECONDS[m[2] as string] as number);
  return total;
}

const CLASSES = ['IN', 'CH', 'HS', 'CS', 'NONE', 'ANY'];

export async function importZone(zoneName: string, text: string | Iterable<string>, options: ImportOptions = {}): Promise<ImportResult> {
  const maxErrors = options.maxErrors ?? 100;
  const sliceMs = options.sliceMs ?? 10;
  const zone = normalizeName(zoneName.endsWith('.') ? zoneName : `${zoneName}.`);
  const result: ImportResult = { zone, records: [], errors: [], errorCount: 0 };
  const checker = new ZoneChecker(zone);
  const recordLines: number[] = [];
  let origin = zone;
  let defaultTtl: number | undefined;
  let lastTtl: number | undefined;
  let lastOwner: string | undefined;
  const fail = (line: number, message: string) => {
    result.errorCount += 1;
    if (result.errors.length < maxErrors) result.errors.push({ line, message });
  };

  let sliceStart = performance.now();
  for (const { line, tokens, blankOwner } of tokenizeEntries(text, ({ line, message }) => fail(line, message))) {
    if (performance.now() - sliceStart > sliceMs) {
      await nextTurn();
      sliceStart = performance.now();
    }
    const head = tokens[0]?.text ?? '';
    if (!blankOwner && head.startsWith('$')) {
      const directive = head.toUpperCase();
      const arg = tokens[1]?.text;
      if (directive === '$ORIGIN') {
        if (!arg || tokens.length > 2) { fail(line, '$ORIGIN takes one domain name'); continue; }
        const next = toAbsolute(arg, origin);
        const problems = checkName('$ORIGIN', next);
        if (problems.length) fail(line, problems.map((p) => p.message).join('; '));
        else origin = next;
      } else if (directive === '$TTL') {
        const ttl = arg === undefined ? undefined : parseTtl(arg);
        if (ttl === undefined || tokens.length > 2 || ttl > 2147483647) fail(line, `$TTL takes one TTL, got "${arg ?? ''}"`);
        else defaultTtl = ttl;
      } else {
        fail(line, `${head} is not supported (only $ORIGIN and $TTL)`);
      }
      continue;
    }

    let i = 0;
    let owner: string | undefined;
    if (blankOwner) {
      owner = lastOwner;
      if (!owner) { fail(line, 'no owner name: the first record must name its owner'); continue; }
    } else {
      owner = head === '@' ? origin : toAbsolute(head, origin);
      i = 1;
    }
    lastOwner = owner;

    let ttl: number | undefined;
    let sawClass = false;
    for (let k = 0; k < 2 && i < tokens.length; k++) {
      const t = tokens[i] as { text: string; quoted: boolean };
      const asTtl = t.quoted ? undefined : parseTtl(t.text);
      if (asTtl !== undefined && ttl === undefined) { ttl = asTtl; i++; continue; }
      if (!t.quoted && !sawClass && CLASSES.includes(t.text.toUpperCase())) {
        sawClass = true;
        if (t.text.toUpperCase() !== 'IN') { fail(line, `class ${t.text} is not supported (only IN)`); ttl = -1; }
        i++;
        continue;
      }
      break;
    }
    if (ttl === -1) continue;
    const typeToken = tokens[i];
    if (!typeToken) { fail(line, 'missing record type'); continue; }
    const type = typeToken.text.toUpperCase();
    const rdataTokens = tokens.slice(i + 1);

    if (type === 'SOA') {
      readSoa(result, line, owner, ttl ?? defaultTtl, rdataTokens.map((t) => t.text), origin, fail);
      if (result.soa && result.soa.line === line) lastTtl = lastTtl ?? result.soa.ttl;
      continue;
    }
    if (!isRecordType(type)) {
      fail(line, (SIGNER_TYPES as readonly string[]).includes(type) ? unsupportedTypeReason(type) : `record type ${typeToken.text} is not supported`);
      continue;
    }
    const effectiveTtl = ttl ?? defaultTtl ?? lastTtl;
    if (effectiveTtl === undefined) { fail(line, 'no TTL: give one on the record or with $TTL'); continue; }
    if (ttl !== undefined) lastTtl = ttl;

    let rdata;
    try {
      rdata = rdataFromBind(type, rdataTokens, origin);
    } catch (err) {
      fail(line, `${type}: ${(err as Error).message}`);
      continue;
    }
    const checked = validateRecord(zone, { owner, type, ttl: effectiveTtl, rdata });
    if (!checked.record) {
      fail(line, checked.errors.map((e) => `${type} ${e.field}: ${e.message}`).join('; '));
      continue;
    }
    const record = checked.record as ImportedRecord;
    record.line = line;
    checker.add(record);
    recordLines.push(line);
    if (options.onRecord) await options.onRecord(record);
    else result.records.push(record);
  }

  if (!result.soa && result.errorCount === 0) fail(1, `the file has no SOA record for ${zone}`);
  for (const _pause of checker.finishing()) await nextTurn();
  for (const e of checker.errors) {
    const lines = e.records.map((i) => recordLines[i] ?? 0);
    fail(Math.max(...lines), `${e.message} (${e.rule}${lines.length > 1 ? `; lines ${lines.join(', ')}` : ''})`);
  }
  result.defaultTtl = defaultTtl;
  result.errors.sort((a, b) => a.line - b.line);
  return result;
}

function readSoa(
  result: ImportResult, line: number, owner: string, ttl: number | undefined, fields: string[], origin: string,
  fail: (line: number, message: string) => void,
): void {
  if (owner !== result.zone) { fail(line, `the SOA must be at the zone apex ${result.zone}, not ${owner}`); return; }
  if (result.soa) { fail(line, `a second SOA record (the first is on line ${result.soa.line})`); return; }
  if (fields.length !== 7) { fail(line, `SOA takes 7 fields (mname rname serial refresh retry expire minimum), got ${fields.length}`); return; }
  const [mname, rname, ...times] = fields as [string, string, ...string[]];
  const numbers = times.map((t, k) => (k === 0 ? (/^\d+$/.test(t) ? Number(t) : undefined) : parseTtl(t)));
  const names = ['serial', 'refresh', 'retry', 'expire', 'minimum'];
  // The serial is a full uint32 (RFC 1982); the timers are TTL-like, 0 to 2^31-1 (reference §7.2).
  const bad = numbers.map((n, k) => (n === undefined || n > (k === 0 ? 4294967295 : 2147483647) ? names[k] : undefined)).filter(Boolean);
  if (bad.length) { fail(line, `SOA ${bad.join(', ')} out of range (serial 0-4294967295, timers 0-2147483647)`); return; }
  const m = toAbsolute(mname, origin);
  const r = toAbsolute(rname, origin);
  const nameErrors = [...checkName('mname', m), ...checkName('rname', isAbsolute(r) ? r : `${r}.`, { mailbox: true })];
  if (nameErrors.length) { fail(line, `SOA ${nameErrors.map((e) => e.message).join('; ')}`); return; }
  const effectiveTtl = ttl ?? (numbers[4] as number);
  const [serial, refresh, retry, expire, minimum] = numbers as [number, number, number, number, number];
  result.soa = { mname: m, rname: r, serial, refresh, retry, expire, minimum, ttl: effectiveTtl, line };
}
