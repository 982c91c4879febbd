// RFC 2136 UPDATE, signed with a TSIG key whose scope allows it, applied as an ordinary Keyzone change: the zone's
// row locked, the prerequisites checked and the RRsets read in the same transaction (services/zones/rrsets.ts
// changeRrsets, which the PowerDNS-compatible API uses too: zone rules, quotas, one serial bump, history naming
// the key), the publisher kicked afterwards. The whole message or nothing. Types an UPDATE may add here: A, AAAA,
// CNAME, NS (below the apex), PTR, DNAME, MX, SRV, TXT, CAA; the SOA and apex NS are Keyzone's (REFUSED).
import type { Deps } from '../deps';
import { isInZone, isRecordType, rdataKey, rdataToBind, type RecordType } from '../dns';
import { ApiError } from '../errors';
import type { Db } from '../queries/db';
import type { PermissionFlag } from '../queries/permissions';
import { findRecordsNear, type ZoneRecordRow } from '../queries/zone-records';
import { findLiveZoneByName, type ZoneRow } from '../queries/zones';
import { inScope } from '../services/access/api-tokens';
import type { TsigKeyInUse } from '../services/access/tsig-keys';
import { assertPermitted } from '../services/directory/permission-objects';
import { changeRrsets, parseContent, PowerDnsApiError, type RrsetChange } from '../services/zones/rrsets';
import { toZoneRecord } from '../services/zones/zone-rules';
import { keyReachesZone } from '../services/zones/zone-transfer';
import { CLASS, RCODE, type RawMessage, type RawRecord } from './message';
import { absoluteName, presentation as presentationOf } from './presentation';
import type { UpdateHandler } from './update-hook';

/** An UPDATE refused with this RCODE. */
class UpdateRefusal extends Error {
  constructor(readonly rcode: number, message: string) {
    super(message);
  }
}
const refuse = (rcode: number, message: string) => new UpdateRefusal(rcode, message);

const ADDABLE = new Set(['A', 'AAAA', 'CNAME', 'NS', 'PTR', 'DNAME', 'MX', 'SRV', 'TXT', 'CAA']);
/** A record in presentation form, only for the types an UPDATE handles here. */
const presentation = (rr: RawRecord) => (ADDABLE.has(rr.type) ? presentationOf(rr) : undefined);
const META_TYPES = new Set(['ANY', 'AXFR', 'IXFR', 'MAILA', 'MAILB', 'TSIG', 'OPT']);
const absolute = absoluteName;

interface Op {
  kind: 'add' | 'delete-rrset' | 'delete-name' | 'delete-rr';
  owner: string;
  type: string;
  ttl: number;
  content?: string;
}

/** The update section checked (RFC 2136 §3.4.1) and against the key's scope, before any database work. */
function prescan(zone: ZoneRow, key: TsigKeyInUse, updates: RawRecord[]): Op[] {
  return updates.map((rr): Op => {
    const owner = absolute(rr.name);
    if (!isInZone(owner, zone.name)) throw refuse(RCODE.NOTZONE, `${owner} is not in ${zone.name}`);
    let op: Op;
    if (rr.classCode === CLASS.IN) {
      if (META_TYPES.has(rr.type)) throw refuse(RCODE.FORMERR, `cannot add type ${rr.type}`);
      const content = ADDABLE.has(rr.type) ? presentation(rr) : undefined;
      if (content === undefined) throw refuse(RCODE.REFUSED, `type ${rr.type} cannot be added by UPDATE here`);
      op = { kind: 'add', owner, type: rr.type, ttl: rr.ttl, content };
    } else if (rr.classCode === CLASS.ANY) {
      if (rr.ttl !== 0 || rr.rdata.length !== 0 || (META_TYPES.has(rr.type) && rr.type !== 'ANY')) throw refuse(RCODE.FORMERR, 'bad delete');
      op = { kind: rr.type === 'ANY' ? 'delete-name' : 'delete-rrset', owner, type: rr.type, ttl: 0 };
    } else if (rr.classCode === CLASS.NONE) {
      if (rr.ttl !== 0 || META_TYPES.has(rr.type)) throw refuse(RCODE.FORMERR, 'bad delete');
      const content = presentation(rr);
      if (content === undefined) throw refuse(RCODE.REFUSED, `type ${rr.type} cannot be deleted by UPDATE here`);
      op = { kind: 'delete-rr', owner, type: rr.type, ttl: 0, content };
    } else {
      throw refuse(RCODE.FORMERR, 'bad class');
    }
    if (op.type === 'SOA' || (op.type === 'NS' && owner === zone.name)) {
      throw refuse(RCODE.REFUSED, 'the SOA and the apex NS RRset are kept by Keyzone');
    }
    if (!inScope.name(key.scope, owner)) throw refuse(RCODE.REFUSED, `key ${key.name} may not change ${owner}`);
    if (op.kind === 'delete-name' ? key.scope.recordTypes !== null : !inScope.type(key.scope, op.type)) {
      throw refuse(RCODE.REFUSED, `key ${key.name} may not change ${op.type} records`);
    }
    return op;
  });
}

async function recordsAt(trx: Db, zone: ZoneRow, owner: string): Promise<ZoneRecordRow[]> {
  return (await findRecordsNear(trx, zone.id, [owner])).filter((r) => r.owner === owner);
}

/** RFC 2136 §3.2, against the zone as it is inside the transaction. */
async function checkPrerequisites(trx: Db, zone: ZoneRow, prerequisites: RawRecord[]): Promise<void> {
  const valueSets = new Map<string, { owner: string; type: string; keys: Set<string> }>();
  for (const rr of prerequisites) {
    const owner = absolute(rr.name);
    if (!isInZone(owner, zone.name)) throw refuse(RCODE.NOTZONE, `${owner} is not in ${zone.name}`);
    if (rr.ttl !== 0) throw refuse(RCODE.FORMERR, 'a prerequisite has a TTL');
    const atApex = owner === zone.name;
    const rows = await recordsAt(trx, zone, owner);
    const rrsetExists = (type: string) => (atApex && (type === 'SOA' || type === 'NS')) || rows.some((r) => r.type === type);
    if (rr.classCode === CLASS.ANY) {
      if (rr.rdata.length !== 0) throw refuse(RCODE.FORMERR, 'bad prerequisite');
      if (rr.type === 'ANY') {
        if (!atApex && rows.length === 0) throw refuse(RCODE.NXDOMAIN, `${owner} is not in use`);
      } else if (!rrsetExists(rr.type)) {
        throw refuse(RCODE.NXRRSET, `${owner} ${rr.type} does not exist`);
      }
    } else if (rr.classCode === CLASS.NONE) {
      if (rr.rdata.length !== 0) throw refuse(RCODE.FORMERR, 'bad prerequisite');
      if (rr.type === 'ANY') {
        if (atApex || rows.length > 0) throw refuse(RCODE.YXDOMAIN, `${owner} is in use`);
      } else if (rrsetExists(rr.type)) {
        throw refuse(RCODE.YXRRSET, `${owner} ${rr.type} exists`);
      }
    } else if (rr.classCode === CLASS.IN) {
      const content = presentation(rr);
      if (content === undefined || !isRecordType(rr.type)) throw refuse(RCODE.NXRRSET, `${owner} ${rr.type} cannot be compared here`);
      const key = `${owner} ${rr.type}`;
      const set = valueSets.get(key) ?? { owner, type: rr.type, keys: new Set<string>() };
      set.keys.add(rdataKey(asRecord(zone, owner, rr.type, content)));
      valueSets.set(key, set);
    } else {
      throw refuse(RCODE.FORMERR, 'bad prerequisite class');
    }
  }
  for (const { owner, type, keys } of valueSets.values()) {
    const have = new Set((await recordsAt(trx, zone, owner)).filter((r) => r.type === type).map((r) => rdataKey(toZoneRecord(r))));
    if (have.size !== keys.size || [...keys].some((k) => !have.has(k))) throw refuse(RCODE.NXRRSET, `${owner} ${type} differs`);
  }
}

function asRecord(zone: ZoneRow, owner: string, type: string, content: string) {
  try {
    return parseContent(zone, owner, type, 0, content);
  } catch (err) {
    throw refuse(RCODE.REFUSED, (err as Error).message);
  }
}

/** The ops as RRset REPLACE/DELETE changes, from the RRsets as they are inside the transaction. */
async function rrsetChanges(trx: Db, zone: ZoneRow, ops: Op[]): Promise<RrsetChange[]> {
  const sets = new Map<string, { owner: string; type: string; ttl: number; records: Map<string, string>; changed: boolean }>();
  const loaded = new Set<string>();
  const load = async (owner: string) => {
    if (loaded.has(owner)) return;
    loaded.add(owner);
    for (const row of await recordsAt(trx, zone, owner)) {
      const key = `${owner} ${row.type}`;
      const set = sets.get(key) ?? { owner, type: row.type, ttl: row.ttl, records: new Map(), changed: false };
      const record = toZoneRecord(row);
      set.records.set(rdataKey(record), rdataToBind(row.type as RecordType, record.rdata));
      sets.set(key, set);
    }
  };
  const setOf = (owner: string, type: string) => {
    const key = `${owner} ${type}`;
    const set = sets.get(key) ?? { owner, type, ttl: 0, records: new Map<string, string>(), changed: false };
    sets.set(key, set);
    return set;
  };
  for (const op of ops) {
    await load(op.owner);
    if (op.kind === 'delete-name') {
      for (const set of sets.values()) {
        if (set.owner === op.owner && set.records.size > 0) {
          set.records.clear();
          set.changed = true;
        }
      }
      continue;
    }
    const set = setOf(op.owner, op.type);
    if (op.kind === 'delete-rrset') {
      if (set.records.size > 0) set.changed = true;
      set.records.clear();
    } else {
      const key = rdataKey(asRecord(zone, op.owner, op.type, op.content!));
      if (op.kind === 'delete-rr') {
        if (set.records.delete(key)) set.changed = true;
      } else if (!set.records.has(key) || set.ttl !== op.ttl) {
        // RFC 2136 §3.4.2.2: an added record joins its RRset, whose TTL becomes the new one.
        set.records.set(key, op.content!);
        set.ttl = op.ttl;
        set.changed = true;
      }
    }
  }
  return [...sets.values()].filter((s) => s.changed).map((s): RrsetChange => (s.records.size === 0
    ? { name: s.owner, type: s.type, changetype: 'DELETE' }
    : { name: s.owner, type: s.type, ttl: s.ttl, changetype: 'REPLACE', records: [...s.records.values()].map((content) => ({ content })) }));
}

async function applyUpdate(deps: Deps, request: RawMessage, key: TsigKeyInUse | undefined): Promise<void> {
  if (request.questions.length !== 1 || request.questions[0]!.type !== 'SOA') throw refuse(RCODE.FORMERR, 'the zone section must hold one SOA');
  const zoneQuestion = request.questions[0]!;
  if (zoneQuestion.classCode !== CLASS.IN) throw refuse(RCODE.NOTAUTH, 'not a zone Keyzone holds');
  const zone = await findLiveZoneByName(deps.db, absolute(zoneQuestion.name));
  if (!zone) throw refuse(RCODE.NOTAUTH, `${absolute(zoneQuestion.name)} is not a zone Keyzone holds`);
  if (!key) throw refuse(RCODE.REFUSED, 'updates must be signed with a TSIG key');
  if (!(await keyReachesZone(deps.db, key, zone))) throw refuse(RCODE.REFUSED, `key ${key.name} is not for ${zone.name}`);
  const ops = prescan(zone, key, request.authorities);
  // The owner's permission object limits a key as it limits the owner's session (issue 38.4).
  const flags = new Set<PermissionFlag>(ops.map((op) => (op.kind === 'add' ? 'zonerecord_create' : 'zonerecord_delete')));
  if (flags.has('zonerecord_create')) flags.add('zonerecord_write');
  await assertPermitted(deps.db, key.caller, [...flags]);
  const { changed } = await changeRrsets(deps, key, zone.id, async (trx, locked) => {
    await checkPrerequisites(trx, locked, request.answers);
    return rrsetChanges(trx, locked, ops);
  });
  if (changed) deps.publisher?.kick();
}

/** Answers an UPDATE: NOERROR when applied, else the RCODE RFC 2136 names for what stopped it. */
export const handleUpdate: UpdateHandler = async (deps, request, _buf, key, answer) => {
  try {
    await applyUpdate(deps, request, key);
    return answer(RCODE.NOERROR);
  } catch (err) {
    if (err instanceof UpdateRefusal) {
      deps.log.info({ key: key?.name, rcode: err.rcode, reason: err.message }, 'DNS UPDATE refused');
      return answer(err.rcode);
    }
    if (err instanceof PowerDnsApiError || err instanceof ApiError) {
      deps.log.info({ key: key?.name, reason: err.message }, 'DNS UPDATE refused by the zone rules');
      return answer(err instanceof ApiError && err.statusCode === 404 ? RCODE.NOTAUTH : RCODE.REFUSED);
    }
    throw err;
  }
};
