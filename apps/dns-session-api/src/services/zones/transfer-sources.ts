// Where zones may be pulled from (import-axfr, a secondary zone's primary). Administrators of any group may ask for
// a transfer, and a transfer is a TCP connection the server opens: without a limit a group's administrator could
// point it at the server's own host (a database port, a local admin service) or a cloud metadata address and read
// from the error which of them answer. Public and private-network nameservers are the normal case and stay allowed.
import { BlockList, isIP } from 'node:net';
import { addressListTest, normalizeAddress } from '@keyzone/config';
import { badRequest } from '../../errors';

const REFUSED = new BlockList();
REFUSED.addSubnet('0.0.0.0', 8, 'ipv4');          // "this network", unspecified
REFUSED.addSubnet('127.0.0.0', 8, 'ipv4');        // loopback
REFUSED.addSubnet('169.254.0.0', 16, 'ipv4');     // link-local, cloud metadata
REFUSED.addSubnet('224.0.0.0', 4, 'ipv4');        // multicast
REFUSED.addSubnet('240.0.0.0', 4, 'ipv4');        // reserved, broadcast
REFUSED.addAddress('::', 'ipv6');
REFUSED.addAddress('::1', 'ipv6');
REFUSED.addSubnet('fe80::', 10, 'ipv6');
REFUSED.addSubnet('ff00::', 8, 'ipv6');

export interface TransferSourceSettings {
  dns: { transferSourcesAllowed: readonly string[] };
}

/** Throws a 400 naming the setting when zones may not be pulled from `address`; returns it normalized. */
export function checkTransferSource(config: TransferSourceSettings, address: string, field: string): string {
  const normalized = normalizeAddress(address);
  const version = isIP(normalized);
  if (version === 0) throw badRequest(`${field}: an IP address`);
  // normalizeAddress turns the dotted IPv4-mapped form into IPv4; the hex form (::ffff:7f00:1) is refused whole
  // (no rule for ::ffff:0:0/96 in the list: BlockList would apply it to every IPv4 address).
  const refused = version === 6 && normalized.startsWith('::ffff:') ? true : REFUSED.check(normalized, version === 4 ? 'ipv4' : 'ipv6');
  if (!refused) return normalized;
  if (addressListTest(config.dns.transferSourcesAllowed)(normalized)) return normalized;
  throw badRequest(`${field}: zones are not pulled from ${normalized} (a loopback, link-local, multicast or unspecified address) ` +
    'unless dns.yml transfer_sources_allowed lists it');
}
