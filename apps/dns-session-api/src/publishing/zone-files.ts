// BIND, NSD and Knot: one zone file per zone in the configured directory (written to a temporary name and
// renamed, so a server never reads half a file), an include file listing them in BIND syntax, and the
// configured reload command (an argv list, no shell; {zone} is the zone's name), with a timeout.
import { execFile } from 'node:child_process';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { exportZone, normalizeName, type ExportZone } from '../dns';

export interface ZoneFileTarget {
  directory: string;
  includeFile: string;
  reloadCommand: string[];
  timeoutMs: number;
}

const SUFFIX = '.zone';
const fileOf = (target: ZoneFileTarget, zoneName: string) => path.join(target.directory, `${normalizeName(zoneName).replace(/\.$/, '')}${SUFFIX}`);

async function writeAtomically(file: string, text: string): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: 0o644 });
  await rename(temporary, file);
}

async function rewriteInclude(target: ZoneFileTarget): Promise<void> {
  const zones = (await readdir(target.directory)).filter((f) => f.endsWith(SUFFIX)).sort();
  const lines = zones.map((f) => `zone "${f.slice(0, -SUFFIX.length)}" { type primary; file "${path.join(target.directory, f)}"; };`);
  await writeAtomically(path.join(target.directory, target.includeFile), `# written by Keyzone; do not edit\n${lines.join('\n')}\n`);
}

function reload(target: ZoneFileTarget, zoneName: string): Promise<void> {
  const [command, ...args] = target.reloadCommand.map((part) => part.replaceAll('{zone}', normalizeName(zoneName).replace(/\.$/, '')));
  if (!command) return Promise.resolve();
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: target.timeoutMs }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`${target.reloadCommand.join(' ')} failed: ${String(stderr).trim() || err.message}`));
      else resolve();
    });
  });
}

export async function publishZoneFile(target: ZoneFileTarget, zone: ExportZone): Promise<void> {
  await mkdir(target.directory, { recursive: true });
  await writeAtomically(fileOf(target, zone.name), exportZone({ ...zone, comment: `zone ${zone.name} published by Keyzone` }));
  await rewriteInclude(target);
  await reload(target, zone.name);
}

export async function removeZoneFile(target: ZoneFileTarget, zoneName: string): Promise<void> {
  await rm(fileOf(target, zoneName), { force: true });
  await mkdir(target.directory, { recursive: true });
  await rewriteInclude(target);
  await reload(target, zoneName);
}
