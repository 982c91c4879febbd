// Requests to URLs an admin typed (custom OAuth/OIDC providers' endpoints, SAML metadata_url) are a server-side
// request forgery risk: such a URL could name the cloud metadata service or an internal admin port. As GoTrue's
// ValidateOAuthURL, only https is allowed and loopback, private, link-local, multicast, unspecified and reserved
// addresses are refused, except within OUTBOUND_ALLOWED_NETWORKS. Unlike a check before the request, the addresses
// are checked where the connection is made (the agent's lookup, and IP literals in createConnection), so a name
// whose DNS answer changes between a check and the connection cannot get around it; each redirect is a new request
// through the same agent.
import dns from 'node:dns';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

type LookupAddress = dns.LookupAddress;
import type { Duplex } from 'node:stream';

/** A URL or address the guard will not reach; its message says why (shown to the admin). */
export class OutboundRefused extends Error {
  override readonly name = 'OutboundRefused';
  readonly code = 'ERR_OUTBOUND_REFUSED';
}

/** 16 bytes of an IPv6 address (any textual form, with an embedded IPv4 tail). */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const v4Tail = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (v4Tail) {
    const [a, b, c, d] = v4Tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4Tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/** The IPv4 address an IPv6 one stands for: v4-mapped (::ffff:a.b.c.d), v4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96). */
function embeddedIpv4(bytes: number[]): string | undefined {
  const tail = bytes.slice(12).join('.');
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return tail;
  // ::a.b.c.d (deprecated "IPv4-compatible"); not ::1 or ::, whose first byte of the tail is 0.
  if (zeros(0, 12) && bytes[12] !== 0) return tail;
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) return tail;
  // 6to4 (2002:AABB:CCDD::/48): a relay delivers it to the IPv4 address a.b.c.d.
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6).join('.');
  return undefined;
}

const REFUSED_V4: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private network'],
  ['100.64.0.0', 10, 'private network'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private network'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private network'],
  ['198.18.0.0', 15, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const REFUSED_V6: Array<[string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fc00::', 7, 'private network'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
  ['100::', 64, 'reserved'],
  ['2001:db8::', 32, 'reserved'],
  // Forms that translate to any IPv4 address, an internal one included: the rest of the deprecated ::/96,
  // SIIT's IPv4-translated addresses (RFC 2765) and local-use NAT64 (RFC 8215).
  ['::', 96, 'reserved'],
  ['::ffff:0:0:0', 96, 'reserved'],
  ['64:ff9b:1::', 48, 'reserved'],
];

/** Which addresses may be reached: everything public, and the allowed networks. */
export class AddressPolicy {
  private readonly allowed = new BlockList();

  constructor(readonly allowedNetworks: readonly string[]) {
    for (const entry of allowedNetworks) {
      const [address = '', prefix] = entry.split('/');
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) this.allowed.addAddress(address, family);
      else this.allowed.addSubnet(address, Number(prefix), family);
    }
  }

  /** Why `address` may not be reached, or undefined when it may. */
  refusal(address: string): string | undefined {
    const version = isIP(address);
    if (version === 0) return `${address} is not an IP address`;
    if (version === 6) {
      const bytes = ipv6Bytes(address);
      const v4 = embeddedIpv4(bytes);
      if (v4 !== undefined) return this.refusal(v4);
      if (this.allowed.check(address, 'ipv6')) return undefined;
      const hit = REFUSED_V6.find(([net, prefix]) => subnet(net, prefix, 'ipv6').check(address, 'ipv6'));
      return hit ? `${address} is ${article(hit[2])} address` : undefined;
    }
    if (this.allowed.check(address, 'ipv4')) return undefined;
    if (address === '255.255.255.255') return `${address} is a broadcast address`;
    const hit = REFUSED_V4.find(([net, prefix]) => subnet(net, prefix, 'ipv4').check(address, 'ipv4'));
    return hit ? `${address} is ${article(hit[2])} address` : undefined;
  }
}

const article = (kind: string) => (/^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`);

const subnets = new Map<string, BlockList>();
function subnet(net: string, prefix: number, family: 'ipv4' | 'ipv6'): BlockList {
  const key = `${net}/${prefix}`;
  let list = subnets.get(key);
  if (!list) {
    list = new BlockList();
    list.addSubnet(net, prefix, family);
    subnets.set(key, list);
  }
  return list;
}

const refusedMessage = (host: string, reason: string) =>
  `${host} resolves to an address that may not be reached (${reason}); allow its network with OUTBOUND_ALLOWED_NETWORKS`;

/**
 * The URL's form: https with a host name. Only the form: the addresses are checked when connecting. Throws
 * OutboundRefused with GoTrue's wording.
 */
export function checkOutboundUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefused('Invalid URL format');
  }
  if (url.protocol !== 'https:') throw new OutboundRefused('URL must use HTTPS');
  if (url.hostname === '') throw new OutboundRefused('URL must have a valid hostname');
  if (url.username !== '' || url.password !== '') throw new OutboundRefused('URL may not carry credentials');
  return url;
}

export interface GuardOptions {
  policy: AddressPolicy;
  /** Extra trusted certificate authorities (tests); default Node's. */
  ca?: https.AgentOptions['ca'];
  /** Name resolution (tests inject answers); default dns.lookup. */
  lookup?: LookupFunction;
}

/** An https.Agent that connects only to addresses the policy allows, whatever DNS answers at connection time. */
export class GuardedAgent extends https.Agent {
  private readonly guardedLookup: LookupFunction;

  constructor(private readonly guard: GuardOptions) {
    const lookup = guardedLookup(guard.policy, guard.lookup ?? (dns.lookup as LookupFunction));
    super({ keepAlive: false, ca: guard.ca, lookup });
    this.guardedLookup = lookup;
  }

  /**
   * Early word for an admin saving a URL: its form, and whether its host resolves to an address that may be reached
   * now. Not the guard itself (DNS may answer otherwise later): every connection is checked again.
   */
  async vet(raw: string): Promise<void> {
    const url = checkOutboundUrl(raw);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0) {
      const reason = this.guard.policy.refusal(host);
      if (reason) throw new OutboundRefused(refusedMessage(host, reason));
      return;
    }
    await new Promise<void>((resolve, reject) => {
      this.guardedLookup(host, { all: true }, (err) => {
        if (!err) resolve();
        else reject(err instanceof OutboundRefused ? err : new OutboundRefused('Unable to resolve hostname'));
      });
    });
  }

  override createConnection(options: https.RequestOptions & { host?: string }, callback: (err: Error | null, socket?: Duplex) => void): Duplex | undefined {
    const host = (options.host ?? '').replace(/^\[|\]$/g, '');
    // An IP literal is connected to without a lookup: check it here.
    if (isIP(host) !== 0) {
      const reason = this.guard.policy.refusal(host);
      if (reason) {
        process.nextTick(() => callback(new OutboundRefused(refusedMessage(host, reason))));
        return undefined;
      }
    }
    return super.createConnection(options, callback) as Duplex;
  }
}

function guardedLookup(policy: AddressPolicy, base: LookupFunction): LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    base(hostname, { ...options, all: true }, (err, found) => {
      if (err) return callback(err, '');
      const addresses = (Array.isArray(found) ? found : [{ address: found, family: isIP(found) }]) as LookupAddress[];
      // Only permitted addresses are offered to the connection; a name with none is refused.
      const permitted = addresses.filter((a) => policy.refusal(a.address) === undefined);
      if (permitted.length === 0) {
        const reason = addresses.length > 0 ? policy.refusal(addresses[0]!.address)! : 'no address';
        return callback(Object.assign(new OutboundRefused(refusedMessage(hostname, reason)), { errno: undefined }) as NodeJS.ErrnoException, '');
      }
      if (options.all) return callback(null, permitted);
      return callback(null, permitted[0]!.address, permitted[0]!.family);
    });
  }) as LookupFunction;
}

export interface OutboundRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
  maxBytes?: number;
  /** GET only: redirects followed (each target checked again); default 3. POST never follows one. */
  maxRedirects?: number;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The URL that answered (after redirects). */
  url: string;
}

/** One request through the guard; network failures and refusals throw (OutboundRefused for the guard's). */
export async function outboundRequest(agent: GuardedAgent, rawUrl: string, request: OutboundRequest = {}): Promise<OutboundResponse> {
  const method = request.method ?? 'GET';
  const maxRedirects = method === 'GET' ? (request.maxRedirects ?? 3) : 0;
  const deadline = Date.now() + (request.timeoutMs ?? 10_000);
  let url = checkOutboundUrl(rawUrl);
  for (let hop = 0; ; hop += 1) {
    const answer = await once(agent, url, method, request, deadline);
    const location = answer.headers.location;
    if (answer.status >= 300 && answer.status < 400 && typeof location === 'string') {
      if (hop >= maxRedirects) throw new Error(`${url.host} redirected ${method === 'GET' ? 'too often' : 'a POST'}`);
      url = checkOutboundUrl(new URL(location, url).toString());
      continue;
    }
    return answer;
  }
}

function once(agent: GuardedAgent, url: URL, method: string, request: OutboundRequest, deadline: number): Promise<OutboundResponse> {
  const maxBytes = request.maxBytes ?? 1024 * 1024;
  return new Promise((resolve, reject) => {
    const remaining = Math.max(1, deadline - Date.now());
    const req = https.request(url, { method, agent, headers: request.headers, timeout: remaining }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          req.destroy(new Error(`${url.host} answered with more than ${maxBytes} bytes`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), url: url.toString() }));
      res.on('error', reject);
    });
    const timer = setTimeout(() => req.destroy(new Error(`${url.host} did not answer within the time allowed`)), remaining);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new Error(`${url.host} did not answer within the time allowed`)));
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(request.body);
  });
}
