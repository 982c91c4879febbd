// `publish --all [--nameserver <id>]`: queue every live zone for its nameservers (the running service publishes them).
import { parseCommand, UsageError } from '@keyzone/config/cli';
import { migrateDns } from '@keyzone/db';
import { systemClock } from '../clock';
import { enqueueAllZones } from '../publishing/queue';
import { loadConfig, openDatabase } from './context';

export const PUBLISH_USAGE = `usage: main.js publish --all [--nameserver <id>]
  queues every live zone for its nameservers; the running service publishes them at its next poll
  --all          every zone (required: publishing everything is never implied)
  --nameserver   only this nameserver's zones (its id)`;

/** The nameserver to limit to (undefined: all), or null for --help; throws a UsageError otherwise. */
export function parsePublishArgs(args: string[]): { nameserverId: number | undefined } | null {
  const parsed = parseCommand(args, { usage: PUBLISH_USAGE, options: { all: { type: 'boolean' }, nameserver: { type: 'string' } } });
  if (parsed.help) return null;
  const problems: string[] = [];
  if (!parsed.values.all) problems.push('--all: required');
  const nameserverId = parsed.values.nameserver === undefined ? undefined : Number(parsed.values.nameserver);
  if (nameserverId !== undefined && !(Number.isInteger(nameserverId) && nameserverId > 0)) problems.push('--nameserver: a nameserver id (a whole number above 0)');
  if (problems.length > 0) throw new UsageError(PUBLISH_USAGE, problems);
  return { nameserverId };
}

export async function runPublish(args: string[]): Promise<void> {
  const input = parsePublishArgs(args);
  if (!input) {
    console.log(PUBLISH_USAGE);
    return;
  }
  const config = loadConfig();
  if (!config.publish.enabled) throw new Error('publishing is off: set enabled: true in publish.yml first');
  const db = openDatabase(config);
  try {
    await migrateDns(db);
    const result = await enqueueAllZones(db, config.publish, systemClock.now(), input.nameserverId);
    for (const ns of result.skipped) console.log(`skipped nameserver ${ns.id} ${ns.name}: ${ns.reason}`);
    console.log(`queued ${result.queued} publish job(s); the running service publishes them at its next poll`);
  } finally {
    await db.destroy();
  }
}
