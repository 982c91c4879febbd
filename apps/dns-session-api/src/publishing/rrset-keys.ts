// The key of an RRset in publish jobs and in the publisher's comparisons: "<owner> <TYPE>", owner lower case
// with its final dot.
import { normalizeName } from '../dns';

export const rrsetKey = (owner: string, type: string): string => `${normalizeName(owner)} ${type.toUpperCase()}`;
