// IP address parsing for A/AAAA and SVCB hints: strict dotted quads, and IPv6 kept in the RFC 5952
// compressed lowercase form so that equal addresses compare equal.

export function isIpv4(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255);
}

/** The eight 16-bit groups of an IPv6 address, or undefined when it is not one. */
export function parseIpv6(text: string): number[] | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || text.length > 45) return undefined;
  let head = text;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.')) {
    const v4 = text.slice(lastColon + 1);
    if (!isIpv4(v4)) return undefined;
    const b = v4.split('.').map(Number) as [number, number, number, number];
    tail.push((b[0] << 8) | b[1], (b[2] << 8) | b[3]);
    head = text.slice(0, lastColon + 1);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string): number[] | undefined => {
    if (s === '') return [];
    const out: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const left = groups(halves[0] as string);
  if (!left) return undefined;
  if (halves.length === 1) {
    const all = [...left, ...tail];
    return all.length === 8 ? all : undefined;
  }
  const right = groups(halves[1] as string);
  if (!right) return undefined;
  const fill = 8 - left.length - right.length - tail.length;
  if (fill < 1) return undefined;
  return [...left, ...new Array<number>(fill).fill(0), ...right, ...tail];
}

/** RFC 5952 text: lowercase, no leading zeros, the longest run (≥2) of zero groups as "::". */
export function formatIpv6(groups: number[]): string {
  let bestStart = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) { bestStart = i; bestLen = j - i; }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

export function canonicalIpv6(text: string): string | undefined {
  const groups = parseIpv6(text);
  return groups ? formatIpv6(groups) : undefined;
}
