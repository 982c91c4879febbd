// What a record type module declares: its RFC field names (the wire and storage names), type code, the
// RFCs it follows, and any rule beyond the per-field checks.
import { FieldError } from '../errors';
import { FieldSpec, Rdata } from '../fields';

export interface RecordTypeDef {
  type: string;
  code: number;
  rfcs: readonly number[];
  description: string;
  fields: readonly FieldSpec[];
  /** extra rules, run only when every field passed its own check */
  rules?: (rdata: Rdata) => FieldError[];
  /** canonical form of values whose equality the field kinds cannot see (SvcParams order) */
  normalize?: (rdata: Rdata) => Rdata;
  /** the owner must be a host name (BIND check-names: A, AAAA, MX) */
  hostOwner?: boolean;
  /** DS sits at the parent side of a delegation, never at the zone apex */
  neverAtApex?: boolean;
  /**
   * The RDATA on the wire, for a type some nameserver lacks (PowerDNS 4.7 has no HIP): it is sent there in
   * RFC 3597's generic form, TYPE<code> \# <length> <hex>, which it serves unchanged.
   */
  genericWire?: (rdata: Rdata) => Buffer;
}

export function defineType(def: RecordTypeDef): RecordTypeDef {
  return def;
}
