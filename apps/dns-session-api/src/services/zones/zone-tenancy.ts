// Tenancy of names (issue 38.1): one nameserver serves the most specific zone it holds, so a zone created below
// (or above) another group's zone takes over names that group owns. Two rules follow.
//
// Zones: a zone may not be created, restored, imported or moved to a group at a name above or below a live zone
// the caller may not manage (a zone of a group outside the caller's subtree), unless an administrator who manages
// that zone allowed it for the zone's group (dns.zone_delegations, POST /zone/<id>/delegation). The refusal does not
// name the other zone: the caller may not see it. The check runs in the writing transaction, under advisory locks on
// the name (exclusive) and on each of its ancestors (shared), so a create and a create above or below it serialize
// while unrelated names (siblings) do not; the live zones above are share-locked, so a record write into one of
// them (which holds that zone's row lock) is ordered with the new zone below it.
//
// Records: a zone's records may not be written at or below a zone Keyzone holds there of its own (whoever's it
// is): those names belong to the child zone. The delegation itself is the exception: NS and DS at the child's apex,
// and A/AAAA glue at a name an NS at that apex names, in the parent (already, or in the same change or file) or in
// the child itself (its nameservers, its apex NS records): glue comes before the NS that needs it (the zone rules
// refuse an in-zone NS without an address).
import { sql } from 'kysely';
import { fieldError, splitLabels, type ZoneRecord } from '../../dns';
import { forbidden } from '../../errors';
import type { Db } from '../../queries/db';
import { findDelegatingZoneIds } from '../../queries/zone-delegations';
import { findRecordsNear } from '../../queries/zone-records';
import { findLiveZonesBelow, findLiveZonesNamed, findZoneNameservers, type ZoneRow } from '../../queries/zones';
import { isInSubtree } from '../../queries/groups';
import { invalidInput } from './dns-errors';

/** pg_advisory_xact_lock(int4, int4) class of zone names ("kzn"); the key is hashtext(name). */
const ZONE_NAME_LOCK = 0x6b7a6e;

/** The proper ancestors of an absolute name, from the top-level one down ("www.a.example." → example., a.example.). */
export function ancestorNames(name: string): string[] {
  const labels = splitLabels(name);
  const out: string[] = [];
  for (let i = labels.length - 1; i >= 1; i--) out.push(`${labels.slice(i).join('.')}.`);
  return out;
}

/** The names from just below `zone` down to `owner` (both absolute, owner inside zone). */
function namesBetween(zone: string, owner: string): string[] {
  const depth = splitLabels(zone).length;
  return [...ancestorNames(owner), owner].filter((n) => splitLabels(n).length > depth);
}

/**
 * Locks a zone name against creates above and below it: shared on every ancestor, top-down, then exclusive on
 * the name. Two creates on one chain meet at the upper name (one exclusive, the other shared); siblings share.
 */
export async function lockZoneName(trx: Db, name: string): Promise<void> {
  for (const ancestor of ancestorNames(name)) {
    await sql`select pg_advisory_xact_lock_shared(${ZONE_NAME_LOCK}, hashtext(${ancestor}))`.execute(trx);
  }
  await sql`select pg_advisory_xact_lock(${ZONE_NAME_LOCK}, hashtext(${name}))`.execute(trx);
}

export interface ZonePlacement {
  /** the zone's name (absolute, lowercase) */
  name: string;
  /** the group that will hold it */
  groupId: number;
  /** the zone itself, when it exists already (restore, move) */
  zoneId?: number;
}

/** Whose right counts: the caller's group (a user manages their group's subtree); import-nictool's: the zone's group. */
export interface Manager {
  groupId: number;
}

/** The live zones above and below a name that the manager may not manage and that did not allow it. */
export async function foreignZonesAround(trx: Db, manager: Manager, placement: ZonePlacement): Promise<{ above: ZoneRow[]; below: ZoneRow[] }> {
  await lockZoneName(trx, placement.name);
  const other = (z: ZoneRow) => z.id !== placement.zoneId;
  const above = (await findLiveZonesNamed(trx, ancestorNames(placement.name), { share: true })).filter(other);
  const below = (await findLiveZonesBelow(trx, placement.name)).filter(other);
  const manageable = new Map<number, boolean>();
  for (const groupId of new Set([...above, ...below].map((z) => z.group_id))) {
    manageable.set(groupId, await isInSubtree(trx, manager.groupId, groupId));
  }
  const foreign = (zones: ZoneRow[]) => zones.filter((z) => !manageable.get(z.group_id));
  const candidates = [...foreign(above), ...foreign(below)];
  const allowed = await findDelegatingZoneIds(trx, candidates.map((z) => z.id), placement.name, placement.groupId);
  const refused = (zones: ZoneRow[]) => foreign(zones).filter((z) => !allowed.has(z.id));
  return { above: refused(above), below: refused(below) };
}

/** Throws 403 when a zone of another group holds names above or below this one (see the header). */
export async function assertZonePlacement(trx: Db, manager: Manager, placement: ZonePlacement): Promise<void> {
  const message = await zonePlacementConflict(trx, manager, placement);
  if (message) throw forbidden(message);
}

/** The refusal's message, or undefined when the placement is allowed (import-nictool reports it instead). */
export async function zonePlacementConflict(trx: Db, manager: Manager, placement: ZonePlacement): Promise<string | undefined> {
  const { above, below } = await foreignZonesAround(trx, manager, placement);
  if (above.length === 0 && below.length === 0) return undefined;
  const where = above.length > 0 ? 'above' : 'below';
  return `${placement.name}: a zone of another group holds names ${where} this one; an administrator who manages that zone may allow it ` +
    '(POST /zone/<id>/delegation)';
}

/** A record (or a change's new record) about to be written into `zone`. */
type Written = Pick<ZoneRecord, 'owner' | 'type' | 'rdata'>;

const APEX_DELEGATION_TYPES = new Set(['NS', 'DS']);

/** Why `zone` may not hold this record (its owner belongs to a child zone), or undefined. */
function childZoneReason(child: ZoneRow, record: Written, glueNames: ReadonlySet<string>): string | undefined {
  if (record.owner === child.name && APEX_DELEGATION_TYPES.has(record.type)) return undefined;
  if ((record.type === 'A' || record.type === 'AAAA') && glueNames.has(record.owner)) return undefined;
  return `${record.owner} lies in the zone ${child.name}, which Keyzone holds of its own: write it there ` +
    '(here only NS and DS at its apex, and A/AAAA glue for the nameservers those NS name)';
}

/**
 * Whether the record hands every name below its owner elsewhere: a DNAME rewrites them (RFC 6672 §2.3), an NS below
 * the apex delegates them; either way the zone's own data there, its delegation to a child zone included, is
 * occluded. Above a child zone it would take the child's names wherever the parent is served without the child.
 */
function cutsBelow(zoneName: string, record: Written): boolean {
  return record.type === 'DNAME' || (record.type === 'NS' && record.owner !== zoneName);
}

function cutAboveChildReason(record: Written, child: ZoneRow): string {
  const effect = record.type === 'DNAME' ? 'redirect' : 'delegate away';
  return `a ${record.type} at ${record.owner} would ${effect} the names of the zone ${child.name}, which Keyzone holds of its own`;
}

/** The names the child zones' apex NS records give (their nameservers and apex NS records): their glue's names. */
async function childNameserverNames(trx: Db, children: readonly ZoneRow[]): Promise<string[]> {
  const assigned = await findZoneNameservers(trx, children.map((c) => c.id));
  const names = [...assigned.values()].flatMap((rows) => rows.map((ns) => ns.name));
  for (const child of children) {
    const apexNs = (await findRecordsNear(trx, child.id, [child.name])).filter((r) => r.type === 'NS' && r.owner === child.name);
    names.push(...apexNs.map((r) => String(r.rdata.dname)));
  }
  return names;
}

/** The child zone (the uppermost, if nested) that holds `owner`, among `children`. */
function childHolding(children: readonly ZoneRow[], zone: string, owner: string): ZoneRow | undefined {
  const between = new Set(namesBetween(zone, owner));
  return children.filter((c) => between.has(c.name)).sort((a, b) => a.name.length - b.name.length)[0];
}

/**
 * Throws 400 (field `owner`, rule `child_zone`) unless every record may be written into `zone` (see the header).
 * Runs with the zone's row locked, so no child zone appears meanwhile (its create share-locks this row).
 * `extraNs`: NS records written in the same change, which give glue too.
 */
export async function assertOutsideChildZones(trx: Db, zone: ZoneRow, records: readonly Written[], extraNs: readonly Written[] = []): Promise<void> {
  const redirects = [];
  for (const record of records.filter((r) => cutsBelow(zone.name, r))) {
    // NS at a child zone's apex is its delegation (the names below are the child's business).
    if (record.type === 'NS' && (await findLiveZonesNamed(trx, [record.owner])).some((c) => c.id !== zone.id)) continue;
    const below = (await findLiveZonesBelow(trx, record.owner)).filter((c) => c.id !== zone.id)[0];
    if (below) redirects.push(fieldError('owner', 'child_zone', cutAboveChildReason(record, below)));
  }
  if (redirects.length > 0) throw invalidInput('zone record', redirects);
  const names = [...new Set(records.flatMap((r) => namesBetween(zone.name, r.owner)))];
  if (names.length === 0) return;
  const children = (await findLiveZonesNamed(trx, names)).filter((c) => c.id !== zone.id);
  if (children.length === 0) return;
  const stored = await findRecordsNear(trx, zone.id, children.map((c) => c.name));
  const glueNames = new Set([
    ...[...stored, ...extraNs].filter((r) => r.type === 'NS' && children.some((c) => c.name === r.owner)).map((r) => String(r.rdata.dname)),
    ...(await childNameserverNames(trx, children)),
  ]);
  const errors = records.flatMap((record) => {
    const child = childHolding(children, zone.name, record.owner);
    const reason = child && childZoneReason(child, record, glueNames);
    return reason ? [fieldError('owner', 'child_zone', reason)] : [];
  });
  if (errors.length > 0) throw invalidInput('zone record', errors);
}

/**
 * For records imported into a new zone (its name locked, so its children are fixed): `check` takes each record as
 * it is read and says why it may not be written, if it may not; A/AAAA below a child wait for `finish`, which says
 * which of them no NS at that child's apex (read meanwhile) names.
 */
export async function childZoneGuard<R extends Written>(trx: Db, zoneName: string): Promise<{
  check: (record: R) => string | undefined;
  finish: () => Array<{ record: R; reason: string }>;
}> {
  const children = await findLiveZonesBelow(trx, zoneName);
  const nsTargets = new Set<string>(await childNameserverNames(trx, children));
  const pendingGlue: Array<{ record: R; child: ZoneRow }> = [];
  return {
    check(record) {
      if (children.length === 0) return undefined;
      if (cutsBelow(zoneName, record) && !(record.type === 'NS' && children.some((c) => c.name === record.owner))) {
        const below = children.find((c) => c.name.endsWith(record.owner === '.' ? '.' : `.${record.owner}`));
        if (below) return cutAboveChildReason(record, below);
      }
      const child = childHolding(children, zoneName, record.owner);
      if (!child) return undefined;
      if (record.owner === child.name && record.type === 'NS') nsTargets.add(String(record.rdata.dname));
      if (record.type === 'A' || record.type === 'AAAA') {
        pendingGlue.push({ record, child });
        return undefined;
      }
      return childZoneReason(child, record, nsTargets);
    },
    finish() {
      return pendingGlue.flatMap(({ record, child }) => {
        const reason = childZoneReason(child, record, nsTargets);
        return reason ? [{ record, reason }] : [];
      });
    },
  };
}
