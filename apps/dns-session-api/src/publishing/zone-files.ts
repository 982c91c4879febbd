// BIND, NSD and Knot: one zone file per zone in the configured directory (written to a temporary name and
// renamed, so a server never reads half a file), an include file listing them in BIND syntax, and the
// configured reload command (an argv list, no shell; {zone} is the zone's name), with a timeout.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { exportZoneInSlices, normalizeName, type ExportZone } from '../dns';
import type { Signing } from './powerdns';

export interface ZoneFileTarget {
  directory: string;
  includeFile: string;
  reloadCommand: string[];
  timeoutMs: number;
  /** BIND's key directory for signed zones (publish.yml zone_files.key_directory). */
  keyDirectory?: string;
  /** Asks whether the nameserver loaded a zone (publish.yml zone_files.check_command). */
  checkCommand?: string[];
}

const SUFFIX = '.zone';
/**
 * Beside a signed zone's file, an empty `<file>.dnssec-<policy>` naming the dnssec-policy the include gives it (so
 * rewriting the include reads no file): `default` or `keyzone-nsec3` (BIND signs it inline) while DNSSEC
 * is on, `insecure` once it is turned off: BIND then withdraws the signatures in the safe order (keys stay until the
 * DS is gone from the parent and the TTLs have passed), and BIND cannot drop inline signing on a reload anyway.
 */
const SIGNED_MARK = '.dnssec-';
const NSEC3_POLICY = 'keyzone-nsec3';
const POLICIES = ['default', NSEC3_POLICY, 'insecure'] as const;
type Policy = (typeof POLICIES)[number];

/** The policy a zone file's mark names (`<file>.dnssec-<policy>`: a directory listing says it, no file is read). */
async function markPolicy(file: string, policy: Policy | undefined): Promise<void> {
  for (const other of POLICIES) if (other !== policy) await rm(`${file}${SIGNED_MARK}${other}`, { force: true });
  if (policy) await writeFile(`${file}${SIGNED_MARK}${policy}`, '');
}

/**
 * The zone's file name: the name without its final dot, every character but [a-z0-9_-] and inner dots written as
 * %XX, so `0/26.2.0.192.in-addr.arpa.` (RFC 2317) is one file and not a directory, and no name climbs out of the
 * directory. zoneNameOfFile reverses it for the include files.
 *
 * A file name may have 255 octets, and a DNS name 253 characters before escaping: a name whose encoded form would
 * leave no room for the suffix, the DNSSEC mark and a temporary name gets `~<sha-256 of the name>.zone` instead,
 * and its name is read back from the file's $ORIGIN line.
 */
export function zoneFileName(zoneName: string): string {
  const base = normalizeName(zoneName).replace(/\.$/, '');
  const encoded = base.replace(/[^a-z0-9_-]/g, (c, i: number) =>
    c === '.' && i > 0 && i < base.length - 1 && base[i - 1] !== '.' ? c : `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  if (encoded.length > LONGEST_ENCODED_NAME) return `${HASHED_PREFIX}${createHash('sha256').update(base).digest('hex')}${SUFFIX}`;
  return `${encoded}${SUFFIX}`;
}

const LONGEST_ENCODED_NAME = 200;
const HASHED_PREFIX = '~';

/** The zone a file holds: decoded from its name, or for a hashed name read from its $ORIGIN line. */
export async function zoneNameOfFile(directory: string, file: string): Promise<string> {
  if (!file.startsWith(HASHED_PREFIX)) {
    return file.slice(0, -SUFFIX.length).replace(/%([0-9a-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  const handle = await open(path.join(directory, file), 'r');
  try {
    const head = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const origin = /^\$ORIGIN\s+(\S+)/m.exec(head.subarray(0, bytesRead).toString('utf8'));
    if (!origin?.[1]) throw new Error(`${file} has no $ORIGIN line`);
    return origin[1].replace(/\.$/, '');
  } finally {
    await handle.close();
  }
}

function fileOf(target: ZoneFileTarget, zoneName: string): string {
  const directory = path.resolve(target.directory);
  const file = path.join(directory, zoneFileName(zoneName));
  if (path.dirname(file) !== directory) throw new Error(`zone name ${JSON.stringify(zoneName)} does not make a file name inside ${directory}`);
  return file;
}

/** A name or path inside double quotes in BIND, NSD and Knot configuration: quotes, backslashes and controls escaped. */
export function quoted(value: string): string {
  // eslint-disable-next-line no-control-regex
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\u0000-\u001f\u007f]/g, (c) => `\\${c.charCodeAt(0).toString().padStart(3, '0')}`)}"`;
}

let temporaries = 0;

async function writeAtomically(file: string, text: string): Promise<void> {
  // Zones are published concurrently: each write has its own temporary name.
  temporaries += 1;
  const temporary = `${file}.${process.pid}-${temporaries}.tmp`;
  await writeFile(temporary, text, { mode: 0o644 });
  await rename(temporary, file);
}

/** The include file for BIND (`include_file`), and beside it the same list for NSD (.nsd) and Knot (.knot). */
export function includeFiles(target: Pick<ZoneFileTarget, 'includeFile'>): { bind: string; nsd: string; knot: string } {
  const base = target.includeFile.replace(/\.conf$/, '');
  return { bind: target.includeFile, nsd: `${base}.nsd.conf`, knot: `${base}.knot.conf` };
}

/** One include rewrite at a time per directory (zones are published concurrently; the last one lists them all). */
const includeWrites = new Map<string, Promise<void>>();

function rewriteInclude(target: ZoneFileTarget): Promise<void> {
  const directory = path.resolve(target.directory);
  const next = (includeWrites.get(directory) ?? Promise.resolve()).catch(() => undefined).then(() => writeInclude(target));
  includeWrites.set(directory, next);
  void next.finally(() => {
    if (includeWrites.get(directory) === next) includeWrites.delete(directory);
  }).catch(() => undefined);
  return next;
}

async function writeInclude(target: ZoneFileTarget): Promise<void> {
  const files = await readdir(target.directory);
  const policies = new Map<string, string>();
  for (const file of files) {
    const at = file.lastIndexOf(`${SUFFIX}${SIGNED_MARK}`);
    const policy = at > 0 ? file.slice(at + SUFFIX.length + SIGNED_MARK.length) : undefined;
    if (policy && (POLICIES as readonly string[]).includes(policy)) policies.set(file.slice(0, at + SUFFIX.length), policy);
  }
  const zones = await Promise.all(files.filter((f) => f.endsWith(SUFFIX)).sort()
    .map(async (f) => ({ name: quoted(await zoneNameOfFile(target.directory, f)), file: quoted(path.join(target.directory, f)), policy: policies.get(f) })));
  const header = '# written by Keyzone; do not edit\n';
  const names = includeFiles(target);
  // A signed zone: BIND's default policy (one CSK, ECDSA P-256, algorithm 13), signed inline from the file Keyzone writes.
  const signing = (policy: string | undefined) =>
    policy && target.keyDirectory ? ` dnssec-policy ${quoted(policy)}; inline-signing yes; key-directory ${quoted(target.keyDirectory)};` : '';
  // The NSEC3 policy is BIND's default with NSEC3 (a top-level statement: written only when a zone uses it).
  const nsec3Policy = zones.some((z) => z.policy === NSEC3_POLICY)
    ? `dnssec-policy ${quoted(NSEC3_POLICY)} { keys { csk lifetime unlimited algorithm 13; }; nsec3param iterations 0 optout no salt-length 0; };\n`
    : '';
  await writeAtomically(path.join(target.directory, names.bind),
    header + nsec3Policy + zones.map((z) => `zone ${z.name} { type primary; file ${z.file};${signing(z.policy)} };\n`).join(''));
  await writeAtomically(path.join(target.directory, names.nsd),
    header + zones.map((z) => `zone:\n  name: ${z.name}\n  zonefile: ${z.file}\n`).join(''));
  await writeAtomically(path.join(target.directory, names.knot),
    header + (zones.length ? 'zone:\n' : '') + zones.map((z) => `  - domain: ${z.name}\n    file: ${z.file}\n`).join(''));
}

function reload(target: ZoneFileTarget, zoneName: string): Promise<void> {
  const name = normalizeName(zoneName).replace(/\.$/, '');
  // {zone} is one argv element, but one starting with '-' would read as an option of the reload command.
  if (name.startsWith('-')) return Promise.reject(new Error(`zone name ${JSON.stringify(zoneName)} begins with "-": not passed to ${target.reloadCommand[0]}`));
  const [command, ...args] = target.reloadCommand.map((part) => part.replaceAll('{zone}', name));
  if (!command) return Promise.resolve();
  return new Promise((resolve, reject) => {
    execFile(command, args, { timeout: target.timeoutMs }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`${target.reloadCommand.join(' ')} failed: ${String(stderr).trim() || err.message}`));
      else resolve();
    });
  });
}

function run(command: string[], zoneName: string, timeoutMs: number): Promise<{ ok: boolean; output: string }> {
  const [program, ...args] = command.map((part) => part.replaceAll('{zone}', zoneName));
  return new Promise((resolve) => {
    execFile(program!, args, { timeout: timeoutMs }, (err, stdout, stderr) => resolve({ ok: !err, output: `${String(stdout)}${String(stderr)}`.trim() || (err?.message ?? '') }));
  });
}

/**
 * Asks the nameserver (check_command, e.g. `rndc zonestatus {zone}`) whether it loaded the zone with this serial,
 * until it says so or the timeout passes: a reload by signal is asynchronous, and a nameserver that refuses a zone
 * file (BIND: `bad name (check-names)`) keeps serving the old one or SERVFAIL, which must not read as success.
 */
async function checkLoaded(target: ZoneFileTarget, zoneName: string, serial: number | string): Promise<void> {
  if (!target.checkCommand?.length) return;
  const name = normalizeName(zoneName).replace(/\.$/, '');
  if (name.startsWith('-')) throw new Error(`zone name ${JSON.stringify(zoneName)} begins with "-": not passed to ${target.checkCommand[0]}`);
  const deadline = Date.now() + target.timeoutMs;
  let last = '';
  for (let wait = 50; ; wait = Math.min(500, wait * 2)) {
    const { ok, output } = await run(target.checkCommand, name, target.timeoutMs);
    const served = /^serial:\s*(\d+)\s*$/m.exec(output)?.[1];
    if (ok && (served === undefined || served === String(serial))) return;
    last = ok ? `it serves serial ${served}, not ${String(serial)}` : output;
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
  throw new Error(`the nameserver did not load ${zoneName}: ${last.slice(0, 500)} (see its log for why)`);
}

export async function publishZoneFile(target: ZoneFileTarget, zone: ExportZone, options: Signing = { dnssec: false, nsec3: false }): Promise<void> {
  if (options.dnssec && !target.keyDirectory) {
    throw new Error(`${zone.name} is to be signed: publish.yml zone_files needs a key_directory where BIND keeps its keys`);
  }
  await mkdir(target.directory, { recursive: true });
  const file = fileOf(target, zone.name);
  await writeAtomically(file, await exportZoneInSlices({ ...zone, comment: `zone ${zone.name} published by Keyzone` }));
  const signedBefore = (await Promise.all(POLICIES.map((p) => stat(`${file}${SIGNED_MARK}${p}`).then(() => true, () => false)))).includes(true);
  if (options.dnssec) await markPolicy(file, options.nsec3 ? NSEC3_POLICY : 'default');
  else if (signedBefore) await markPolicy(file, 'insecure');
  await rewriteInclude(target);
  await reload(target, zone.name);
  await checkLoaded(target, zone.name, zone.soa.serial);
}

export async function removeZoneFile(target: ZoneFileTarget, zoneName: string): Promise<void> {
  await rm(fileOf(target, zoneName), { force: true });
  await markPolicy(fileOf(target, zoneName), undefined);
  await mkdir(target.directory, { recursive: true });
  await rewriteInclude(target);
  await reload(target, zoneName);
}
