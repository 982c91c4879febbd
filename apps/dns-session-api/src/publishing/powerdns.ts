// PowerDNS Authoritative through its HTTP API (/api/v1/servers/<id>/zones): a zone is created with all its
// RRsets, or brought up to date with one PATCH that REPLACEs every RRset it should have and DELETEs the
// others; a removed zone is deleted. soa_edit_api is off, so the SOA serial is the zone's own (YYYYMMDDnn).
import { normalizeName, rrsetsOf, type ExportZone, type PowerDnsRRset as RRset } from '../dns';

export interface PowerDnsTarget {
  url: string;
  apiKey: string;
  serverId: string;
  timeoutMs: number;
}

/**
 * RRsets per request: PowerDNS refuses bodies over webserver-max-bodysize (2 MB by default), so a large zone
 * goes in several PATCHes (its state between them is partly old, partly new: a few seconds for 50,000 records).
 */
const RRSETS_PER_REQUEST = 2000;

async function api(target: PowerDnsTarget, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
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

export async function publishToPowerDns(target: PowerDnsTarget, zone: ExportZone, options: Signing = { dnssec: false, nsec3: false }): Promise<void> {
  const name = normalizeName(zone.name);
  const wanted = await rrsetsOf(zone);
  const current = await api(target, 'GET', `/zones/${encodeURIComponent(name)}?rrsets=true`);
  let existing: string[] = [];
  if (current.status === 404 || current.status === 422) {
    // Created with its SOA; every RRset follows in the PATCHes below.
    // api_rectify: PowerDNS keeps the DNSSEC ordering data right after every API change of a signed zone.
    const created = await api(target, 'POST', '/zones', {
      name, kind: 'Native', nameservers: [], soa_edit_api: '', api_rectify: true, rrsets: wanted.slice(0, 1).map((s) => ({ ...s, changetype: 'REPLACE' })),
    });
    if (created.status !== 201) throw failure(`refused to create ${name}`, created);
  } else if (current.status === 200) {
    existing = ((current.json as { rrsets?: RRset[] }).rrsets ?? []).map((s) => `${s.name} ${s.type}`);
  } else {
    throw failure(`could not read ${name}`, current);
  }
  const keep = new Set(wanted.map((s) => `${s.name} ${s.type}`));
  const deletes = existing.filter((key) => !keep.has(key)).map((key) => {
    const [owner, type] = key.split(' ') as [string, string];
    return { name: owner, type, changetype: 'DELETE' as const };
  });
  const changes: RRset[] = [...wanted.map((s) => ({ ...s, changetype: 'REPLACE' as const })), ...deletes];
  for (let i = 0; i < changes.length; i += RRSETS_PER_REQUEST) {
    const patched = await api(target, 'PATCH', `/zones/${encodeURIComponent(name)}`, { rrsets: changes.slice(i, i + RRSETS_PER_REQUEST) });
    if (patched.status !== 204) throw failure(`refused the changes to ${name}`, patched);
  }
  await applySigning(target, name, options);
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
}

export async function removeFromPowerDns(target: PowerDnsTarget, zoneName: string): Promise<void> {
  const name = normalizeName(zoneName);
  const removed = await api(target, 'DELETE', `/zones/${encodeURIComponent(name)}`);
  if (removed.status !== 204 && removed.status !== 404 && removed.status !== 422) throw failure(`refused to delete ${name}`, removed);
}
