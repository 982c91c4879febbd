// The key of an RRset in publish jobs and in the publisher's comparisons: "<owner> <TYPE>", owner lower case
// with its final dot, and the type as PowerDNS knows it (TYPE55 for HIP, which it lacks), so that a record's key
// and PowerDNS's RRset agree.
import { normalizeName, powerDnsType } from '../dns';

export const rrsetKey = (owner: string, type: string): string => `${normalizeName(owner)} ${powerDnsType(type.toUpperCase())}`;
