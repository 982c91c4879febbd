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

/** The include file for BIND (`include_file`), and beside it the same list for NSD (.nsd) and Knot (.knot). */
export function includeFiles(target: Pick<ZoneFileTarget, 'includeFile'>): { bind: string; nsd: string; knot: string } {
  const base = target.includeFile.replace(/\.conf$/, '');
  return { bind: target.includeFile, nsd: `${base}.nsd.conf`, knot: `${base}.knot.conf` };
}

async function rewriteInclude(target: ZoneFileTarget): Promise<void> {
  const zones = (await readdir(target.directory)).filter((f) => f.endsWith(SUFFIX)).sort()
    .map((f) => ({ name: f.slice(0, -SUFFIX.length), file: path.join(target.directory, f) }));
  const header = '# written by Keyzone; do not edit\n';
  const names = includeFiles(target);
  await writeAtomically(path.join(target.directory, names.bind),
    header + zones.map((z) => `zone "${z.name}" { type primary; file "${z.file}"; };\n`).join(''));
  await writeAtomically(path.join(target.directory, names.nsd),
    header + zones.map((z) => `zone:\n  name: "${z.name}"\n  zonefile: "${z.file}"\n`).join(''));
  await writeAtomically(path.join(target.directory, names.knot),
    header + (zones.length ? 'zone:\n' : '') + zones.map((z) => `  - domain: "${z.name}"\n    file: "${z.file}"\n`).join(''));
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
