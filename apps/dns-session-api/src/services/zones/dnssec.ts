// GET /zone/<id>/dnssec (issue 32): what the zone's nameservers sign it with, read from them (PowerDNS's cryptokeys
// through its API, BIND's key files in publish.yml's key_directory), and the DS records to give the parent
// zone's registrar, computed from those keys (SHA-256 and SHA-384).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Deps } from '../../deps';
import { dsRecords, keyTag, normalizeName, parseDnskey, type Dnskey } from '../../dns';
import { notFound } from '../../errors';
import { powerDnsCryptokeys } from '../../publishing/powerdns';
import { findZoneById, findZoneNameservers } from '../../queries/zones';
import type { Caller } from '../access/caller';
import { assertGroupAccess } from '../directory/permissions';

export interface DnssecKeyWire {
  key_tag: number;
  flags: number;
  algorithm: number;
  dnskey: string;
}

export interface DsWire {
  key_tag: number;
  algorithm: number;
  digest_type: number;
  digest: string;
  /** The DS record as a zone file line, for registrars that take one. */
  record: string;
}

export interface ZoneDnssecWire {
  zone: string;
  enabled: boolean;
  /** Denial of existence by NSEC3 rather than NSEC. */
  nsec3: boolean;
  /**
   * signed: every nameserver signs with the same keys; pending: not all of them sign yet, or one could not be asked;
   * unsigning: DNSSEC is off and a nameserver still serves keys; unsigned; inconsistent: different keys.
   */
  state: 'signed' | 'pending' | 'unsigned' | 'unsigning' | 'inconsistent';
  ds: DsWire[];
  dnskeys: DnssecKeyWire[];
  nameservers: Array<{ id: number; name: string; type: string; key_tags: number[]; error: string | null }>;
}

/** Key states (BIND's .state file, RFC 7583 terms) in which the record is no longer in the zone. */
const GONE = new Set(['hidden', 'unretentive']);

/**
 * Whether BIND still serves the key or signatures made with it: its `.state` file (dnssec-policy keeps one per key)
 * says DNSKEYState and ZRRSIGState; once both are unretentive or hidden the zone is served without them, though
 * the key files stay. A key without a state file counts as in use.
 */
async function servedByBind(keyFile: string): Promise<boolean> {
  const state = await readFile(keyFile.replace(/\.key$/, '.state'), 'utf8').catch(() => undefined);
  if (state === undefined) return true;
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(state)?.[1]?.toLowerCase();
  return !(GONE.has(field('DNSKEYState') ?? '') && GONE.has(field('ZRRSIGState') ?? ''));
}

/** BIND's public keys of a zone in use: the DNSKEY line of each K<zone>+<alg>+<tag>.key in its key directory. */
async function bindKeys(keyDirectory: string, zone: string): Promise<Dnskey[]> {
  const prefix = `K${normalizeName(zone)}+`;
  const files = (await readdir(keyDirectory).catch(() => [] as string[])).filter((f) => f.startsWith(prefix) && f.endsWith('.key'));
  const keys: Dnskey[] = [];
  for (const file of files) {
    if (!(await servedByBind(path.join(keyDirectory, file)))) continue;
    const text = await readFile(path.join(keyDirectory, file), 'utf8');
    const line = text.split('\n').find((l) => /\sDNSKEY\s/.test(l) && !l.startsWith(';'));
    const key = line ? parseDnskey(line.split(/\sDNSKEY\s/)[1] ?? '') : undefined;
    if (key) keys.push(key);
  }
  return keys;
}

const dnskeyText = (k: Dnskey) => `${k.flags} ${k.protocol} ${k.algorithm} ${k.publicKey}`;

export async function zoneDnssec(deps: Deps, caller: Caller, zoneId: number): Promise<ZoneDnssecWire> {
  const zone = await findZoneById(deps.db, zoneId);
  if (!zone || zone.deleted_at) throw notFound('Zone not found');
  await assertGroupAccess(deps.db, caller, zone.group_id, 'zone');
  const nameservers = (await findZoneNameservers(deps.db, [zone.id])).get(zone.id) ?? [];
  const { publish } = deps.config;
  const byKey = new Map<string, Dnskey>();
  const servers: ZoneDnssecWire['nameservers'] = [];
  for (const ns of nameservers) {
    let keys: Dnskey[] = [];
    let error: string | null = null;
    try {
      if (ns.export_type === 'powerdns') {
        const target = publish.powerdns[ns.name];
        if (!target) throw new Error(`publish.yml has no powerdns settings for ${ns.name}`);
        keys = (await powerDnsCryptokeys({ ...target, timeoutMs: publish.timeoutSeconds * 1000 }, zone.name))
          .filter((k) => k.active && k.dnskey).map((k) => parseDnskey(k.dnskey!)).filter((k): k is Dnskey => k !== undefined);
      } else if (ns.export_type === 'bind' && publish.zoneFiles?.keyDirectory) {
        keys = await bindKeys(publish.zoneFiles.keyDirectory, zone.name);
      } else {
        error = `${ns.export_type} nameservers are not signed by Keyzone`;
      }
    } catch (err) {
      error = (err as Error).message;
    }
    for (const key of keys) byKey.set(dnskeyText(key), key);
    servers.push({ id: ns.id, name: ns.name, type: ns.export_type, key_tags: keys.map(keyTag).sort((a, b) => a - b), error });
  }
  const keys = [...byKey.values()];
  // The DS goes to the key-signing keys (the SEP bit, flags 257): a CSK is one.
  const signing = keys.filter((k) => (k.flags & 1) === 1);
  const tagsOf = (s: (typeof servers)[number]) => s.key_tags.join(',');
  const withKeys = servers.filter((s) => s.key_tags.length > 0);
  // A nameserver that could not be asked may still sign (or not yet): the state is pending until it answers.
  const unknown = servers.some((s) => s.error !== null);
  const state: ZoneDnssecWire['state'] = !zone.dnssec
    ? (unknown ? 'pending' : withKeys.length > 0 ? 'unsigning' : 'unsigned')
    : unknown || withKeys.length < servers.length || servers.length === 0 ? 'pending'
      : new Set(withKeys.map(tagsOf)).size > 1 ? 'inconsistent' : 'signed';
  return {
    zone: zone.name,
    enabled: zone.dnssec,
    nsec3: zone.nsec3,
    state,
    ds: signing.flatMap((k) => dsRecords(zone.name, k)).map((ds) => ({
      key_tag: ds.keyTag, algorithm: ds.algorithm, digest_type: ds.digestType, digest: ds.digest,
      record: `${zone.name} IN DS ${ds.keyTag} ${ds.algorithm} ${ds.digestType} ${ds.digest}`,
    })),
    dnskeys: keys.map((k) => ({ key_tag: keyTag(k), flags: k.flags, algorithm: k.algorithm, dnskey: dnskeyText(k) })),
    nameservers: servers,
  };
}
