// `import-axfr --zone <name> --server <address> --as <user@group> …`: a zone pulled from a running nameserver by
// AXFR and imported as the API's POST /zone/import-axfr does, acting as the named administrator (the history
// names them).
import { parseCommand, UsageError } from '@keyzone/config/cli';
import { parseHostPort } from '@keyzone/config';
import { migrateDns } from '@keyzone/db';
import { createLogger } from '@keyzone/logging';
import { buildDeps } from '../deps';
import { findLoginUser } from '../queries/users';
import { importZoneByAxfr, type AxfrImportInput } from '../services/zones/import-axfr';
import { APP_NAME, loadConfig, openDatabase } from './context';

export const IMPORT_AXFR_USAGE = `usage: main.js import-axfr --zone <name> --server <address>[:port] --as <user@group> [--key <algorithm>:<name>:<secret> | --tsig-key-id <id>] [--group-id <id>] [--keep-secondary]
  transfers a zone (AXFR) from a running nameserver and imports it with the zone file import's checks
  --zone      the zone's name (required)
  --server    the nameserver's IP address, optionally :port ([v6]:port); default port 53 (required)
  --as        the administrator the import acts as, username@group (required; the history names them)
  --key       a TSIG key the nameserver allows transfers with, e.g. hmac-sha256:transfer.example:<base64>
  --tsig-key-id  a stored TSIG key (POST /user/<id>/tsig-keys) instead of --key; needed for a signed --keep-secondary
  --group-id  the group to create the zone in (default: the administrator's)
  --keep-secondary  keep the zone as a secondary of the server: refreshed from its SOA by the running API, NOTIFY accepted from it`;

export interface ImportAxfrArgs {
  input: AxfrImportInput;
  as: { username: string; group: string };
}

export function parseImportAxfrArgs(args: string[]): ImportAxfrArgs | undefined {
  const parsed = parseCommand(args, {
    usage: IMPORT_AXFR_USAGE,
    options: {
      zone: { type: 'string', required: true }, server: { type: 'string', required: true }, as: { type: 'string', required: true },
      key: { type: 'string' }, 'group-id': { type: 'string' }, 'tsig-key-id': { type: 'string' }, 'keep-secondary': { type: 'boolean' },
    },
  });
  if (parsed.help) return undefined;
  const problems: string[] = [];
  const target = parseHostPort(parsed.values.server);
  if (!target) problems.push('--server: an IP address, optionally with :port');
  const at = parsed.values.as.lastIndexOf('@');
  if (at <= 0 || at === parsed.values.as.length - 1) problems.push('--as: username@group');
  const keyParts = parsed.values.key?.split(':');
  if (keyParts && (keyParts.length !== 3 || keyParts.some((p) => p === ''))) problems.push('--key: <algorithm>:<name>:<base64 secret>');
  const gid = parsed.values['group-id'] === undefined ? undefined : Number(parsed.values['group-id']);
  if (gid !== undefined && !(Number.isInteger(gid) && gid > 0)) problems.push('--group-id: a group id');
  const tsigKeyId = parsed.values['tsig-key-id'] === undefined ? undefined : Number(parsed.values['tsig-key-id']);
  if (tsigKeyId !== undefined && !(Number.isInteger(tsigKeyId) && tsigKeyId > 0)) problems.push('--tsig-key-id: a TSIG key id');
  if (problems.length > 0) throw new UsageError(IMPORT_AXFR_USAGE, problems);
  return {
    input: {
      zone: parsed.values.zone, server: target!.address, port: target!.port, gid, tsig_key_id: tsigKeyId, keep_secondary: parsed.values['keep-secondary'] === true ? true : undefined,
      key: keyParts ? { algorithm: keyParts[0]!, name: keyParts[1]!, secret: keyParts[2]! } : undefined,
    },
    as: { username: parsed.values.as.slice(0, at), group: parsed.values.as.slice(at + 1) },
  };
}

export async function runImportAxfr(args: string[]): Promise<void> {
  const parsed = parseImportAxfrArgs(args);
  if (!parsed) {
    console.log(IMPORT_AXFR_USAGE);
    return;
  }
  const config = loadConfig();
  const db = openDatabase(config);
  try {
    await migrateDns(db);
    const user = await findLoginUser(db, parsed.as.username, parsed.as.group);
    if (!user) throw new Error(`--as: no user ${parsed.as.username}@${parsed.as.group}`);
    const deps = buildDeps({ config, db, log: createLogger({ name: APP_NAME, level: config.log.level }) });
    const caller = { userId: user.id, groupId: user.group_id, isAdmin: user.is_admin, sessionId: 0 };
    const { zone, records, skipped } = await importZoneByAxfr(deps, caller, parsed.input);
    console.log(`imported ${zone.zone} (zone ${zone.id}, serial ${zone.serial}) with ${records} records${skipped ? `; left out ${skipped} DNSSEC records` : ''}` +
      `${parsed.input.keep_secondary ? `; kept as a secondary of ${parsed.input.server} (refreshed by the running API)` : ''}`);
  } finally {
    await db.destroy();
  }
}
