import { sql } from 'kysely';
import type { Db } from './db';

export type AuditObjectType = 'zone' | 'zone_record' | 'nameserver' | 'user' | 'group' | 'permission';
export type AuditActionName = 'create' | 'update' | 'delete' | 'restore';

export interface AuditRow {
  id: string;
  object_type: AuditObjectType;
  object_id: number;
  zone_id: number | null;
  action: AuditActionName;
  user_id: number | null;
  at: Date;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  ip: string | null;
  /** The API token the change was made with (PowerDNS-compatible API), if any. */
  api_token_id: number | null;
  api_token_name: string | null;
  tsig_key_id: number | null;
  tsig_key_name: string | null;
  /** A system actor (the secondary refresher) when no user made the change. */
  actor_name?: string | null;
}

const columns = ['id', 'object_type', 'object_id', 'zone_id', 'action', 'user_id', 'at', 'before', 'after', 'ip', 'api_token_id', 'api_token_name', 'tsig_key_id', 'tsig_key_name', 'actor_name'] as const;

export async function insertAuditEntry(db: Db, entry: Omit<AuditRow, 'id'>): Promise<void> {
  await db
    .insertInto('dns.audit_log')
    .values({
      ...entry,
      before: entry.before === null ? null : JSON.stringify(entry.before),
      after: entry.after === null ? null : JSON.stringify(entry.after),
    })
    .execute();
}

/**
 * One 'create' entry per live record of a zone, written by the database in one statement (zone import):
 * `after` is the record's wire shape, built from the row as serializeZoneRecord builds it.
 */
export async function insertRecordCreateEntries(db: Db, zoneId: number, userId: number, at: Date, ip: string | null): Promise<void> {
  await sql`
    insert into dns.audit_log (object_type, object_id, zone_id, action, user_id, at, ip, before, after)
    select 'zone_record', r.id, r.zone_id, 'create', ${userId}, ${at}, ${ip}::inet, null,
      jsonb_build_object('id', r.id, 'zid', r.zone_id, 'owner', r.owner, 'type', r.type, 'ttl', r.ttl,
        'description', r.description, 'deleted', false) || r.rdata
    from dns.zone_records r
    where r.zone_id = ${zoneId} and r.deleted_at is null`.execute(db);
}

export async function findAuditEntries(
  db: Db,
  filter: { zoneId?: number; objectType?: AuditObjectType; objectId?: number; limit: number; offset: number },
): Promise<{ rows: AuditRow[]; total: number }> {
  let scope = db.selectFrom('dns.audit_log');
  if (filter.zoneId !== undefined) scope = scope.where('zone_id', '=', filter.zoneId);
  if (filter.objectType !== undefined) scope = scope.where('object_type', '=', filter.objectType);
  if (filter.objectId !== undefined) scope = scope.where('object_id', '=', filter.objectId);
  const [total, rows] = await Promise.all([
    scope.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
    scope.select(columns).orderBy('id', 'asc').limit(filter.limit).offset(filter.offset).execute(),
  ]);
  return { rows, total: Number(total.n) };
}
