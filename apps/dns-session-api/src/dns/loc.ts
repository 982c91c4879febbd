// LOC presentation format (RFC 1876 §3): latitude, longitude, altitude, then optional size and precisions.
//   d1 [m1 [s1]] {N|S} d2 [m2 [s2]] {E|W} alt[m] [siz[m] [hp[m] [vp[m]]]]
// Stored as the canonical full form, as BIND prints it: "52 22 23.000 N 4 53 32.000 E -2.00m 1m 10000m 10m".

const DEFAULTS = { size: 1, hp: 10000, vp: 10 }; // metres (RFC 1876 §3)

function metres(text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const m = /^(-?\d+(?:\.\d{1,2})?)m?$/.exec(text);
  if (!m) return undefined;
  const value = Number(m[1]);
  return value >= min && value <= max ? value : undefined;
}

function angle(parts: string[], hemispheres: [string, string], maxDegrees: number): { text: string; rest: string[] } | undefined {
  const at = parts.findIndex((p) => hemispheres.includes(p.toUpperCase()));
  if (at < 1 || at > 3) return undefined;
  const [d, m = '0', s = '0'] = parts.slice(0, at);
  if (!/^\d{1,3}$/.test(d ?? '') || !/^\d{1,2}$/.test(m) || !/^\d{1,2}(\.\d{1,3})?$/.test(s)) return undefined;
  const deg = Number(d);
  const min = Number(m);
  const sec = Number(s);
  if (deg > maxDegrees || min > 59 || sec >= 60 || (deg === maxDegrees && (min > 0 || sec > 0))) return undefined;
  return { text: `${deg} ${min} ${sec.toFixed(3)} ${(parts[at] as string).toUpperCase()}`, rest: parts.slice(at + 1) };
}

/** The canonical LOC text, or undefined when `text` is not a valid LOC presentation. */
export function normalizeLoc(text: string): string | undefined {
  const parts = text.trim().split(/\s+/);
  const lat = angle(parts, ['N', 'S'], 90);
  if (!lat) return undefined;
  const lon = angle(lat.rest, ['E', 'W'], 180);
  if (!lon) return undefined;
  const [alt, size, hp, vp, ...extra] = lon.rest;
  if (extra.length > 0) return undefined;
  const altitude = metres(alt, -100000, 42849672.95);
  if (altitude === undefined) return undefined;
  const sizes = [metres(size ?? String(DEFAULTS.size), 0, 90000000), metres(hp ?? String(DEFAULTS.hp), 0, 90000000), metres(vp ?? String(DEFAULTS.vp), 0, 90000000)];
  if (sizes.some((s) => s === undefined)) return undefined;
  const m = (v: number) => `${Number.isInteger(v) ? v : v.toFixed(2)}m`;
  return `${lat.text} ${lon.text} ${altitude.toFixed(2)}m ${sizes.map((v) => m(v as number)).join(' ')}`;
}
