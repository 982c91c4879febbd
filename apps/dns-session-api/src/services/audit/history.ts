// Reading the audit history of a zone (its own entries and its records') and of one record. Readable
// whenever the object is, deleted or not: the history of a deleted zone is what one asks for.
import type { Deps } from '../../deps';
import { notFound } from '../../errors';
import { findAuditEntries } from '../../queries/audit';
import { findNameserverById } from '../../queries/nameservers';
import { findZoneById } from '../../queries/zones';
import { serializeAuditEntry, type AuditEntryWire } from '../../serialize-zones';
import type { Caller } from '../access/caller';
import { assertGroupAccess } from '../zones/dns-access';
import { assertRecordReadable } from '../zones/zone-records';

interface Page {
  limit: number;
  offset: number;
}

export async function zoneHistory(deps: Deps, caller: Caller, zoneId: number, page: Page): Promise<{ entries: AuditEntryWire[]; total: number }> {
  const zone = await findZoneById(deps.db, zoneId);
  if (!zone) throw notFound('Zone not found');
  await assertGroupAccess(deps.db, caller, zone.group_id, 'zone');
  const { rows, total } = await findAuditEntries(deps.db, { zoneId, ...page });
  return { entries: rows.map(serializeAuditEntry), total };
}

export async function recordHistory(deps: Deps, caller: Caller, recordId: number, page: Page): Promise<{ entries: AuditEntryWire[]; total: number }> {
  await assertRecordReadable(deps, caller, recordId);
  const { rows, total } = await findAuditEntries(deps.db, { objectType: 'zone_record', objectId: recordId, ...page });
  return { entries: rows.map(serializeAuditEntry), total };
}

export async function nameserverHistory(deps: Deps, caller: Caller, nameserverId: number, page: Page): Promise<{ entries: AuditEntryWire[]; total: number }> {
  const ns = await findNameserverById(deps.db, nameserverId);
  if (!ns) throw notFound('Nameserver not found');
  await assertGroupAccess(deps.db, caller, ns.group_id, 'nameserver');
  const { rows, total } = await findAuditEntries(deps.db, { objectType: 'nameserver', objectId: nameserverId, ...page });
  return { entries: rows.map(serializeAuditEntry), total };
}
