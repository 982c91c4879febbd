// import-axfr (issue 44): a zone pulled from a running nameserver by AXFR (optionally TSIG-signed), then imported
// through the zone file import (importZoneFile: the same checks, quotas, tenancy and one transaction). The transfer
// happens before any transaction opens. DNSSEC signatures and chains (RRSIG, NSEC, NSEC3, NSEC3PARAM) are left out:
// Keyzone signs when publishing. A record type Keyzone cannot read from the wire yet is a 400 naming it. With
// keep_secondary the zone stays a secondary of that primary (secondary/refresher.ts), in the import's transaction.
import type { Deps } from '../../deps';
import { SIGNER_TYPES } from '../../dns';
import type { Zone } from '../../serialize-zones';
import { badRequest } from '../../errors';
import { pullZone, TransferError } from '../../dns-server/axfr-client';
import { presentation } from '../../dns-server/presentation';
import type { RawRecord } from '../../dns-server/message';
import type { TsigKeyMaterial } from '../../dns-server/tsig';
import type { Caller } from '../access/caller';
import { TSIG_ALGORITHMS } from '../access/tsig-keys';
import { assertAdmin } from '../directory/permissions';
import type { Db } from '../../queries/db';
import type { ZoneRow } from '../../queries/zones';
import { importZoneFile } from './zone-files';
import { keepAsSecondary, primaryKeyFor } from './secondary/manage';
import { checkTransferSource } from './transfer-sources';

export interface AxfrImportInput {
  zone: string;
  server: string;
  port?: number;
  key?: { name: string; algorithm: string; secret: string };
  gid?: number;
  description?: string;
  /** A stored TSIG key (POST /user/<id>/tsig-keys) instead of `key`: its secret signs the transfer. */
  tsig_key_id?: number;
  /** Keep the zone as a secondary of this primary (refreshed from its SOA, NOTIFY accepted from it); needs tsig_key_id for a signed one. */
  keep_secondary?: boolean;
}

export async function importZoneByAxfr(deps: Deps, caller: Caller, input: AxfrImportInput): Promise<{ zone: Zone; records: number; skipped: number }> {
  // It opens a connection wherever it is told: administrators only, so the API is no port scanner for everyone.
  assertAdmin(caller, 'import a zone by AXFR');
  checkTransferSource(deps.config, input.server, 'server');
  let key: TsigKeyMaterial | undefined;
  if (input.key && input.tsig_key_id !== undefined) throw badRequest('key, tsig_key_id: one or the other');
  // The refresher signs every later query with the key, so a kept secondary's key must be stored (sealed) in Keyzone.
  if (input.key && input.keep_secondary) throw badRequest('key: a zone kept as a secondary needs a stored TSIG key: give tsig_key_id instead');
  if (input.tsig_key_id !== undefined) key = await primaryKeyFor(deps, caller, input.tsig_key_id);
  if (input.key) {
    if (!(TSIG_ALGORITHMS as readonly string[]).includes(input.key.algorithm)) throw badRequest(`key.algorithm: one of ${TSIG_ALGORITHMS.join(', ')}`);
    const secret = Buffer.from(input.key.secret, 'base64');
    if (secret.length < 16) throw badRequest('key.secret: at least 16 bytes, base64');
    key = { name: input.key.name.toLowerCase().replace(/\.$/, ''), algorithm: input.key.algorithm, secret };
  }
  const zone = input.zone.toLowerCase().replace(/\.$/, '');
  let records;
  try {
    records = await pullZone({ server: input.server, port: input.port ?? 53, zone, key, timeoutMs: deps.config.publish.timeoutSeconds * 3000, now: () => deps.clock.now().getTime() });
  } catch (err) {
    if (err instanceof TransferError) throw badRequest(`The transfer of ${zone} from ${input.server} failed: ${err.message}`);
    throw err;
  }
  const { lines, unreadable, skipped } = zoneFileOfTransfer(zone, records);
  if (unreadable.length > 0) throw badRequest(`The zone holds records Keyzone cannot import from a transfer yet: ${unreadable.join(', ')}`);
  // The transfer's first record is the primary's SOA (pullZone checks it): its serial and timers start the refresh.
  const soa = records[0]?.data as { serial: number; refresh: number; retry: number; expire: number } | undefined;
  const within = input.keep_secondary && soa
    ? async (trx: Db, created: ZoneRow) => {
      await keepAsSecondary(trx, deps, caller, created, { address: input.server, port: input.port, tsig_key_id: input.tsig_key_id ?? null }, soa);
    }
    : undefined;
  const result = await importZoneFile(deps, caller, { zone: `${zone}.`, zonefile: lines.join('\n'), gid: input.gid, description: input.description }, { within });
  return { ...result, skipped };
}

/**
 * A transfer's records as zone-file lines (absolute names, explicit TTLs) for the zone file import's parser and
 * checks. DNSSEC signatures and chains are left out (`skipped`); `unreadable` names the types Keyzone cannot read
 * from the wire yet.
 */
export function zoneFileOfTransfer(zone: string, records: RawRecord[]): { lines: string[]; unreadable: string[]; skipped: number } {
  const lines = [`$ORIGIN ${zone}.`];
  const unreadable = new Set<string>();
  let skipped = 0;
  for (const rr of records) {
    if ((SIGNER_TYPES as readonly string[]).includes(rr.type)) {
      skipped++;
      continue;
    }
    const text = presentation(rr);
    if (text === undefined) {
      unreadable.add(rr.type.replace(/^UNKNOWN_/, 'TYPE'));
      continue;
    }
    lines.push(`${rr.name === '' ? '.' : `${rr.name}.`} ${rr.ttl} IN ${rr.type} ${text}`);
  }
  return { lines, unreadable: [...unreadable], skipped };
}
