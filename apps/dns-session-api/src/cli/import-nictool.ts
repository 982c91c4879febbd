// `import-nictool --from mysql://…`: copies a NicTool 2 installation's groups, users, nameservers and zones.
import { parseCommand, UsageError } from '@keyzone/config/cli';
import { migrateDns } from '@keyzone/db';
import { systemClock } from '../clock';
import { importNicTool } from '../nictool/import';
import { formatSummary } from '../nictool/summary';
import { openNicTool } from '../nictool/source';
import { loadConfig, openDatabase } from './context';

export const IMPORT_NICTOOL_USAGE = `usage: main.js import-nictool --from mysql://user:pass@host[:port]/nictool [--dry-run] [--allow-cross-group-zones]
  imports a NicTool 2 database's groups, users, nameservers and zones, and prints a summary
  --from      the NicTool MySQL/MariaDB database (required)
  --dry-run   read and check everything, write nothing
  --allow-cross-group-zones
              import a zone above or below a live zone of a group outside its own group's subtree
              (listed in the summary; without it such a zone is skipped and listed)`;

export interface ImportNicToolArgs {
  from: string;
  dryRun: boolean;
  allowCrossGroupZones: boolean;
}

/** The import's source, or undefined for --help; throws a UsageError otherwise. */
export function parseImportNicToolArgs(args: string[]): ImportNicToolArgs | undefined {
  const parsed = parseCommand(args, {
    usage: IMPORT_NICTOOL_USAGE, options: { from: { type: 'string', required: true }, 'dry-run': { type: 'boolean' }, 'allow-cross-group-zones': { type: 'boolean' } },
  });
  if (parsed.help) return undefined;
  if (!/^mysql:\/\/[^/]+\/[^/?]+/.test(parsed.values.from)) {
    throw new UsageError(IMPORT_NICTOOL_USAGE, ['--from: a mysql:// URL naming the NicTool database (mysql://user:pass@host/nictool)']);
  }
  return { from: parsed.values.from, dryRun: parsed.values['dry-run'], allowCrossGroupZones: parsed.values['allow-cross-group-zones'] };
}

export async function runImportNicTool(args: string[]): Promise<void> {
  const input = parseImportNicToolArgs(args);
  if (!input) {
    console.log(IMPORT_NICTOOL_USAGE);
    return;
  }
  const config = loadConfig();
  const db = openDatabase(config);
  try {
    await migrateDns(db);
    const source = await openNicTool(input.from);
    try {
      console.log(formatSummary(await importNicTool({ db, clock: systemClock }, source, { dryRun: input.dryRun, publish: config.publish, allowCrossGroupZones: input.allowCrossGroupZones })));
    } finally {
      await source.close();
    }
  } finally {
    await db.destroy();
  }
}
