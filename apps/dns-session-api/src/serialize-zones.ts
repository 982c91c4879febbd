// The wire shapes of nameservers, zones, zone records and audit entries (NicTool v3 field names: `gid`,
// `zone`, `zid`, per-type RDATA fields beside owner/type/ttl), as zod schemas and the functions that build
// them. Nothing else assembles these objects.
import { z } from 'zod';
import { envelopeSchema, metaSchema } from './http/envelope';
import { charStringsText, escapeCharString, isNumericKind, isRecordType, parseCharStrings, recordTypes, RECORD_TYPES, type FieldKind, type Rdata } from './dns';
import type { AuditRow } from './queries/audit';
import type { NameserverRow } from './queries/nameservers';
import type { ZoneRecordRow } from './queries/zone-records';
import type { ZoneRow } from './queries/zones';

export const nameserverSchema = z.object({
  id: z.number().int(),
  gid: z.number().int(),
  name: z.string(),
  address: z.string().nullable(),
  address6: z.string().nullable(),
  ttl: z.number().int(),
  description: z.string(),
  export: z.object({ type: z.string() }),
  deleted: z.boolean(),
});
export type Nameserver = z.infer<typeof nameserverSchema>;

export function serializeNameserver(row: NameserverRow): Nameserver {
  return {
    id: row.id, gid: row.group_id, name: row.name, address: row.address, address6: row.address6, ttl: row.ttl,
    description: row.description, export: { type: row.export_type }, deleted: row.deleted_at !== null,
  };
}

export const zoneSchema = z.object({
  id: z.number().int(),
  gid: z.number().int(),
  zone: z.string(),
  description: z.string(),
  mailaddr: z.string(),
  serial: z.number().int(),
  refresh: z.number().int(),
  retry: z.number().int(),
  expire: z.number().int(),
  minimum: z.number().int(),
  ttl: z.number().int(),
  nameservers: z.array(z.number().int()).meta({ description: 'ids of the assigned nameservers; the NS records derive from them' }),
  dnssec: z.boolean().meta({ description: 'Signed by its nameservers (GET /zone/<id>/dnssec: the DS records for the registrar)' }),
  nsec3: z.boolean().meta({ description: 'When signed: NSEC3 (RFC 5155, no salt, no extra iterations) rather than NSEC' }),
  last_modified: z.string(),
  deleted: z.boolean(),
  secondary: z.boolean().optional().meta({
    description: 'In the zone list, true (and only there) for a zone kept as a secondary of an outside primary (GET /zone/<id>/secondary): its records are read-only',
  }),
});
export type Zone = z.infer<typeof zoneSchema>;

/** The ids of nameserver rows, in their order (serializeZone's second argument). */
export function idsOf(nameservers: readonly { id: number }[]): number[] {
  return nameservers.map((n) => n.id);
}

/** The wire form of a zone; `nameserverIds` in assignment order; `secondary` only where the caller looked it up (the zone list). */
export function serializeZone(row: ZoneRow, nameserverIds: readonly number[], extra: { secondary?: boolean } = {}): Zone {
  return {
    id: row.id, gid: row.group_id, zone: row.name, description: row.description, mailaddr: row.mailaddr,
    serial: row.serial, refresh: row.refresh, retry: row.retry, expire: row.expire, minimum: row.minimum, ttl: row.ttl,
    nameservers: [...nameserverIds], dnssec: row.dnssec, nsec3: row.nsec3, last_modified: row.updated_at.toISOString(), deleted: row.deleted_at !== null,
    ...extra,
  };
}

/** Every RDATA field name of every type, typed by its kind(s): the optional fields of a record body. */
export function rdataFieldSchemas(): Record<string, z.ZodType> {
  const kinds = new Map<string, Set<FieldKind>>();
  const types = new Map<string, string[]>();
  const withMnemonics = new Set<string>();
  for (const type of RECORD_TYPES) {
    for (const f of recordTypes[type].fields) {
      kinds.set(f.name, (kinds.get(f.name) ?? new Set()).add(f.kind));
      types.set(f.name, [...(types.get(f.name) ?? []), type]);
      if (f.mnemonics) withMnemonics.add(f.name);
    }
  }
  const out: Record<string, z.ZodType> = {};
  for (const [name, set] of kinds) {
    // A numeric field that takes a mnemonic (CERT's "PKIX") also takes a string; the type module checks which.
    const numeric = [...set].every(isNumericKind) && !withMnemonics.has(name);
    const text = [...set].every((k) => !isNumericKind(k));
    const base = numeric ? z.number().int() : text ? z.string() : z.union([z.number().int(), z.string()]);
    out[name] = base.meta({ description: `RDATA field of ${types.get(name)?.join(', ')}` });
  }
  return out;
}

const rdataFields = rdataFieldSchemas();

export const zoneRecordSchema = z.object({
  id: z.number().int(),
  zid: z.number().int(),
  owner: z.string().meta({ description: 'fully qualified, with a trailing dot' }),
  type: z.enum(RECORD_TYPES),
  ttl: z.number().int(),
  description: z.string(),
  deleted: z.boolean(),
  ...Object.fromEntries(Object.entries(rdataFields).map(([k, v]) => [k, v.optional()])),
  strings: z.array(z.string()).optional().meta({
    description: 'TXT: each character-string exactly, escaped as in zone files (\\" \\\\ \\DDD); send them back as "quoted" "strings" in data',
  }),
});
export type ZoneRecordWire = { id: number; zid: number; owner: string; type: string; ttl: number; description: string; deleted: boolean } & Record<string, unknown>;

export function serializeZoneRecord(row: ZoneRecordRow): ZoneRecordWire {
  return {
    id: row.id, zid: row.zone_id, owner: row.owner, type: row.type, ttl: row.ttl, description: row.description,
    deleted: row.deleted_at !== null, ...rdataForWire(row.type, row.rdata),
  };
}

/**
 * RDATA as the API shows it. Character-string fields (TXT data) are stored in presentation form; the API
 * gives their text (`data`, as clients wrote it) and each string exactly (`strings`, escaped as in zone files).
 */
function rdataForWire(type: string, rdata: Rdata): Record<string, unknown> {
  const fields = isRecordType(type) ? recordTypes[type].fields : [];
  if (!fields.some((f) => f.kind === 'charstrings')) return rdata;
  const out: Record<string, unknown> = { ...rdata };
  for (const f of fields) {
    if (f.kind !== 'charstrings') continue;
    const strings = parseCharStrings(String(rdata[f.name])) ?? [];
    out[f.name] = charStringsText(strings);
    out.strings = strings.map(escapeCharString);
  }
  return out;
}

export const auditEntrySchema = z.object({
  id: z.number().int(),
  object: z.enum(['zone', 'zone_record', 'nameserver', 'user', 'group', 'permission']),
  object_id: z.number().int(),
  action: z.enum(['create', 'update', 'delete', 'restore']),
  user: z.object({ id: z.number().int().nullable() }),
  actor: z.string().nullable().optional()
    .meta({ description: 'A system actor that made the change without a user (the secondary refresher: "secondary-refresh"); user.id is null then' }),
  at: z.string(),
  ip: z.string().nullable().meta({ description: "The client's address (behind trusted proxies, the client's own); null when unknown" }),
  api_token: z.object({ id: z.number().int(), name: z.string() }).nullable()
    .meta({ description: 'The API token the change was made with (the PowerDNS-compatible API); null for changes made in a session' }),
  tsig_key: z.object({ id: z.number().int(), name: z.string() }).nullable()
    .meta({ description: 'The TSIG key a DNS UPDATE (RFC 2136) making the change was signed with; null otherwise' }),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
});
export type AuditEntryWire = z.infer<typeof auditEntrySchema>;

export function serializeAuditEntry(row: AuditRow): AuditEntryWire {
  return {
    id: Number(row.id), object: row.object_type, object_id: row.object_id, action: row.action,
    user: { id: row.user_id }, actor: row.actor_name ?? null, at: row.at.toISOString(), ip: row.ip,
    api_token: row.api_token_id === null ? null : { id: row.api_token_id, name: row.api_token_name ?? '' },
    tsig_key: row.tsig_key_id === null ? null : { id: row.tsig_key_id, name: row.tsig_key_name ?? '' }, before: row.before, after: row.after,
  };
}

export const paginationSchema = z.object({
  total: z.number().int(),
  filtered: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type Pagination = z.infer<typeof paginationSchema>;

/** `{ [name]: items, meta: {api, msg, pagination} }` for list responses. */
export function listEnvelopeSchema<K extends string, S extends z.ZodType>(name: K, item: S) {
  return z.object({ [name]: z.array(item), meta: metaSchema.extend({ pagination: paginationSchema }) } as {
    [P in K]: z.ZodArray<S>;
  } & { meta: z.ZodObject });
}

export const nameserverResponseSchema = envelopeSchema('nameserver', nameserverSchema);
export const zoneResponseSchema = envelopeSchema('zone', zoneSchema);
export const zoneRecordResponseSchema = envelopeSchema('zone_record', zoneRecordSchema);
