// RFC 1982 serial number arithmetic (SERIAL_BITS 32): which of two SOA serials is newer.
const HALF = 2 ** 31;
const MOD = 2 ** 32;

/** Whether serial `a` is newer than `b` (undefined comparisons, exactly 2^31 apart, count as not newer). */
export function serialNewer(a: number, b: number): boolean {
  const d = (a - b + MOD) % MOD;
  return d !== 0 && d < HALF;
}
