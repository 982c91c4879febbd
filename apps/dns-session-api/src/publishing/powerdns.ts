// PowerDNS Authoritative through its HTTP API (/api/v1/servers/<id>/zones). A change is sent as the RRsets it
// touched (REPLACE with their contents now, or DELETE) and the SOA, in one PATCH; the whole zone goes out only
// when PowerDNS lacks it, or its serial is behind what Keyzone last gave it, or the zone itself changed: then it
// is compared with what PowerDNS has and only the RRsets that differ are sent. A removed zone is deleted.
// soa_edit_api is off, so the SOA serial is the zone's own (YYYYMMDDnn).
import { normalizeName, rrsetsOf, type ExportZone, type PowerDnsRRset as RRset } from '../dns';
import { rrsetKey } from './rrset-keys';

export interface PowerDnsTarget {
  url: string;
  apiKey: string;
  serverId: string;
  timeoutMs: number;
}

/**
 * RRsets per request: PowerDNS refuses bodies over webserver-max-bodysize (2 MB by default), so a large zone
 * goes in several PATCHes (its state between them is partly old, partly new: a few seconds for 50,000 records).
 * The SOA goes in the last one, so the serial says the zone is complete only once it is. Small enough that one
 * PATCH takes tens of milliseconds even in a 100,000-record zone: another zone's change waits for at most one.
 */
const RRSETS_PER_REQUEST = 250;

/**
 * Writes to one PowerDNS take turns, first come first served: its sqlite backend refuses a second write
 * transaction while one is open (a 500), so a small change arriving during a large zone's PATCHes would fail and
 * back off for seconds. In the lane it goes between two of them instead.
 */
const writeLanes = new Map<string, Promise<void>>();

async function inWriteLane<T>(target: PowerDnsTarget, write: () => Promise<T>): Promise<T> {
  const key = `${target.url} ${target.serverId}`;
  const before = writeLanes.get(key) ?? Promise.resolve();
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  const mine = before.then(() => done);
  writeLanes.set(key, mine);
  await before;
  try {
    return await write();
  } finally {
    release();
    if (writeLanes.get(key) === mine) writeLanes.delete(key);
  }
}

async function api(target: PowerDnsTarget, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  if (method === 'GET') return call(target, method, path, body);
  // A write that still meets a busy backend (another Keyzone instance writing) is tried again shortly.
  for (let attempt = 0; ; attempt++) {
    const answer = await inWriteLane(target, () => call(target, method, path, body));
    if (answer.status !== 500 || attempt === 3) return answer;
    await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
  }
}

async function call(target: PowerDnsTarget, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  let response: Response;
  try {
    response = await fetch(`${target.url}/api/v1/servers/${encodeURIComponent(target.serverId)}${path}`, {
      method,
      headers: { 'x-api-key': target.apiKey, accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(target.timeoutMs),
    });
  } catch (err) {
    throw new Error(`PowerDNS at ${target.url} did not answer: ${(err as Error).message}`);
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  return { status: response.status, json };
}

const failure = (what: string, answer: { status: number; json: unknown }) =>
  new Error(`PowerDNS ${what}: ${answer.status} ${typeof answer.json === 'object' && answer.json && 'error' in answer.json ? String((answer.json as { error: unknown }).error) : JSON.stringify(answer.json)}`);

export interface Signing {
  dnssec: boolean;
  nsec3: boolean;
}

const keyOf = (s: RRset) => rrsetKey(s.name, s.type);
const zonePath = (name: string) => `/zones/${encodeURIComponent(name)}`;

/** The SOA serial PowerDNS serves for the zone, or undefined when it does not have the zone. */
export async function powerDnsSerial(target: PowerDnsTarget, zoneName: string): Promise<number | undefined> {
  const name = normalizeName(zoneName);
  const answer = await api(target, 'GET', `${zonePath(name)}?rrsets=false`);
  if (answer.status === 404 || answer.status === 422) return undefined;
  if (answer.status !== 200) throw failure(`could not read ${name}`, answer);
  const serial = (answer.json as { serial?: unknown }).serial;
  return typeof serial === 'number' ? serial : undefined;
}

/** PATCHes `changes` (SOA last) in requests of RRSETS_PER_REQUEST. */
async function patch(target: PowerDnsTarget, name: string, changes: RRset[]): Promise<void> {
  const soa = changes.filter((c) => c.type === 'SOA');
  const ordered = [...changes.filter((c) => c.type !== 'SOA'), ...soa];
  for (let i = 0; i < ordered.length; i += RRSETS_PER_REQUEST) {
    const patched = await api(target, 'PATCH', zonePath(name), { rrsets: ordered.slice(i, i + RRSETS_PER_REQUEST) });
    if (patched.status !== 204) throw failure(`refused the changes to ${name}`, patched);
  }
}

/**
 * Sends only `changed` RRsets ("<owner> <type>" keys) and the SOA: `zone` needs to hold just the records at
 * those owners (and the zone's own NS and glue owners); a key with no records left is deleted.
 */
export async function patchPowerDnsRrsets(target: PowerDnsTarget, zone: ExportZone, changed: string[]): Promise<number> {
  const name = normalizeName(zone.name);
  const wanted = new Map((await rrsetsOf(zone, { sorted: false })).map((s) => [keyOf(s), s]));
  const changes: RRset[] = [];
  for (const key of new Set([...changed, rrsetKey(name, 'SOA')])) {
    const set = wanted.get(key);
    if (set) {
      changes.push({ ...set, changetype: 'REPLACE' });
    } else {
      const at = key.lastIndexOf(' ');
      changes.push({ name: key.slice(0, at), type: key.slice(at + 1), changetype: 'DELETE' });
    }
  }
  await patch(target, name, changes);
  return changes.length;
}

const sameRrset = (a: RRset, b: RRset) =>
  a.ttl === b.ttl && JSON.stringify((a.records ?? []).map((r) => r.content).sort()) === JSON.stringify((b.records ?? []).map((r) => r.content).sort());

/** The whole zone: created if PowerDNS lacks it, else brought level with it; returns how many RRsets were sent. */
export async function publishToPowerDns(target: PowerDnsTarget, zone: ExportZone, options: Signing = { dnssec: false, nsec3: false }): Promise<number> {
  const name = normalizeName(zone.name);
  const wanted = await rrsetsOf(zone, { sorted: false });
  const current = await api(target, 'GET', `${zonePath(name)}?rrsets=true`);
  let existing = new Map<string, RRset>();
  if (current.status === 404 || current.status === 422) {
    // Created with its SOA; every RRset follows in the PATCHes below. api_rectify (PowerDNS rectifies the whole
    // zone after every API change) stays off while they go in, else each PATCH of a large zone costs more than the
    // last; applySigning turns it on for a signed zone and rectifies once.
    const created = await api(target, 'POST', '/zones', {
      name, kind: 'Native', nameservers: [], soa_edit_api: '', api_rectify: false, rrsets: wanted.slice(0, 1).map((s) => ({ ...s, changetype: 'REPLACE' })),
    });
    if (created.status !== 201) throw failure(`refused to create ${name}`, created);
  } else if (current.status === 200) {
    existing = new Map(((current.json as { rrsets?: RRset[] }).rrsets ?? []).map((s) => [keyOf(s), s]));
  } else {
    throw failure(`could not read ${name}`, current);
  }
  const keep = new Set(wanted.map(keyOf));
  const changes: RRset[] = wanted
    .filter((s) => s.type === 'SOA' || !existing.has(keyOf(s)) || !sameRrset(s, existing.get(keyOf(s))!))
    .map((s) => ({ ...s, changetype: 'REPLACE' as const }));
  for (const [key, set] of existing) {
    if (!keep.has(key)) changes.push({ name: set.name, type: set.type, changetype: 'DELETE' });
  }
  await patch(target, name, changes);
  await applySigning(target, name, options);
  return changes.length;
}

export interface PowerDnsCryptokey {
  id: number;
  keytype: string;
  active: boolean;
  published?: boolean;
  algorithm?: string;
  flags?: number;
  dnskey?: string;
  ds?: string[];
}

/** The zone's keys on PowerDNS (DNSKEY and DS in presentation form), [] for an unsigned or unknown zone. */
export async function powerDnsCryptokeys(target: PowerDnsTarget, zoneName: string): Promise<PowerDnsCryptokey[]> {
  const answer = await api(target, 'GET', `/zones/${encodeURIComponent(normalizeName(zoneName))}/cryptokeys`);
  if (answer.status === 404 || answer.status === 422) return [];
  if (answer.status !== 200) throw failure(`could not read the keys of ${zoneName}`, answer);
  return answer.json as PowerDnsCryptokey[];
}

/** NSEC3 as RFC 9276 advises: SHA-1, no opt-out, no extra iterations, no salt. */
const NSEC3PARAM = '1 0 0 -';

/**
 * Signing on: one active CSK (ECDSA P-256 SHA-256, algorithm 13) unless the zone has an active key, NSEC3 or NSEC,
 * and a rectify. Off: the keys are deleted, so the zone is served unsigned at once (the README says what to do at
 * the registrar first).
 */
async function applySigning(target: PowerDnsTarget, name: string, { dnssec, nsec3 }: Signing): Promise<void> {
  const path = `/zones/${encodeURIComponent(name)}`;
  // A PowerDNS without a DNSSEC-capable backend answers the keys route with an error: with nothing to sign or
  // unsign, that is no reason to fail an unsigned zone's publishing.
  const keys = dnssec ? await powerDnsCryptokeys(target, name) : await powerDnsCryptokeys(target, name).catch(() => []);
  if (dnssec) {
    if (!keys.some((k) => k.active)) {
      const made = await api(target, 'POST', `${path}/cryptokeys`, { keytype: 'csk', active: true, published: true, algorithm: 'ECDSAP256SHA256' });
      if (made.status !== 201) throw failure(`refused to make a signing key for ${name}`, made);
    }
    const settings = await api(target, 'PUT', path, { api_rectify: true, nsec3param: nsec3 ? NSEC3PARAM : '', nsec3narrow: false });
    if (settings.status !== 204) throw failure(`refused api_rectify for ${name}`, settings);
    const rectified = await api(target, 'PUT', `${path}/rectify`);
    if (rectified.status !== 200) throw failure(`could not rectify ${name}`, rectified);
    return;
  }
  for (const key of keys) {
    const removed = await api(target, 'DELETE', `${path}/cryptokeys/${key.id}`);
    if (removed.status !== 204 && removed.status !== 404) throw failure(`refused to delete key ${key.id} of ${name}`, removed);
  }
  // An unsigned zone needs no rectify, and with api_rectify on PowerDNS rectifies the whole zone after every PATCH
  // (0.8 s for one RRset in a 100,000-record zone, against 4 ms): off, also for zones created on before issue 38.
  // Best effort, as the keys above: the zone is served right either way.
  await api(target, 'PUT', path, { api_rectify: false }).catch(() => undefined);
}

export async function removeFromPowerDns(target: PowerDnsTarget, zoneName: string): Promise<void> {
  const name = normalizeName(zoneName);
  const removed = await api(target, 'DELETE', `/zones/${encodeURIComponent(name)}`);
  if (removed.status !== 204 && removed.status !== 404 && removed.status !== 422) throw failure(`refused to delete ${name}`, removed);
}
