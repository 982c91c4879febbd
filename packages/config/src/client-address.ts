// The client address behind trusted reverse proxies, for both services. A proxy appends the address it
// received the request from to X-Forwarded-For, so only the entries added by proxies we trust are facts; the
// left-most ones are whatever the client wrote. Walking from the right and stopping at the first address that
// is not a trusted proxy gives the one address no client can choose.
import { BlockList, isIP } from 'node:net';

/** One entry of a trusted-proxy list: an IPv4/IPv6 address or a CIDR block. */
function parseEntry(entry: string): { address: string; prefix?: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [rawAddress = '', rawPrefix, extra] = entry.split('/');
  if (extra !== undefined) return undefined;
  const address = normalizeAddress(rawAddress);
  const version = isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (rawPrefix === undefined) return { address, family };
  if (!/^\d{1,3}$/.test(rawPrefix)) return undefined;
  const prefix = Number(rawPrefix);
  if (prefix > (version === 4 ? 32 : 128)) return undefined;
  return { address, prefix, family };
}

/**
 * A comma-separated list of addresses and CIDR blocks (`10.0.0.0/8, 192.0.2.7, fd00::/8`), trimmed; undefined
 * when any entry is malformed. An empty string is an empty list (no proxy trusted).
 */
export function parseTrustedProxies(raw: string): string[] | undefined {
  const entries = raw.split(',').map((e) => e.trim()).filter((e) => e !== '');
  return entries.every((e) => parseEntry(e) !== undefined) ? entries : undefined;
}

/** `::ffff:192.0.2.1` → `192.0.2.1`; `[2001:db8::1]` → `2001:db8::1`; `192.0.2.1:4711` → `192.0.2.1`. */
export function normalizeAddress(raw: string): string {
  let address = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1] ?? '';
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  if (/^::ffff:\d{1,3}(\.\d{1,3}){3}$/i.test(address)) address = address.slice(7);
  return address.toLowerCase();
}

export interface ClientAddressOptions {
  /** Addresses and CIDR blocks of the reverse proxies in front of the service (parseTrustedProxies). */
  trustedProxies: readonly string[];
  /**
   * Called, at most once per `warnEverySeconds`, when a request carries X-Forwarded-For but came from an
   * address that is not a trusted proxy: behind such a proxy every client shares one address and one limit.
   */
  onUntrustedForwarding?: (socketAddress: string) => void;
  warnEverySeconds?: number;
  now?: () => number;
}

export interface ClientAddressResolver {
  /** The client's address: the socket's, or the right-most X-Forwarded-For entry that is not a trusted proxy. */
  resolve(socketAddress: string | undefined, forwardedFor: string | undefined): string;
  isTrusted(address: string): boolean;
}

export function createClientAddressResolver(options: ClientAddressOptions): ClientAddressResolver {
  const list = new BlockList();
  for (const entry of options.trustedProxies) {
    const parsed = parseEntry(entry);
    if (!parsed) throw new Error(`Invalid trusted proxy "${entry}": expected an IP address or a CIDR block`);
    if (parsed.prefix === undefined) list.addAddress(parsed.address, parsed.family);
    else list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  const anyTrusted = options.trustedProxies.length > 0;
  const now = options.now ?? Date.now;
  const warnEveryMs = (options.warnEverySeconds ?? 600) * 1000;
  let lastWarning = -Infinity;

  const isTrusted = (address: string): boolean => {
    if (!anyTrusted) return false;
    const version = isIP(address);
    return version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6');
  };

  return {
    isTrusted,
    resolve(socketAddress, forwardedFor) {
      // Node gives the socket's address bare (no brackets, no port, lowercase): only an IPv4-mapped prefix goes.
      // This runs on every request, so no regular expression on the common path.
      const raw = socketAddress ?? '';
      const socket = raw.startsWith('::ffff:') && raw.includes('.') ? raw.slice(7) : raw;
      if (!forwardedFor) return socket;
      if (!isTrusted(socket)) {
        if (options.onUntrustedForwarding && now() - lastWarning >= warnEveryMs) {
          lastWarning = now();
          options.onUntrustedForwarding(socket);
        }
        return socket;
      }
      let client = socket;
      const hops = forwardedFor.split(',');
      for (let i = hops.length - 1; i >= 0; i -= 1) {
        const hop = normalizeAddress(hops[i] ?? '');
        // A malformed entry next to a trusted proxy is that proxy's doing: the last good address stands.
        if (isIP(hop) === 0) break;
        client = hop;
        if (!isTrusted(hop)) break;
      }
      return client;
    },
  };
}

/**
 * A test for membership in a list of addresses and CIDR blocks (parseTrustedProxies' form), in every form Node
 * reports an address. As Express's `trust proxy` setting for the trusted-proxy list, `req.protocol` and
 * `req.secure` follow the X-Forwarded-Proto of a trusted proxy only. An empty list holds no one.
 */
export function addressListTest(list: readonly string[]): (address: string) => boolean {
  const { isTrusted } = createClientAddressResolver({ trustedProxies: list });
  return (address) => isTrusted(normalizeAddress(address));
}
