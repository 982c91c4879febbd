// String → value coercions shared by the env and YAML loaders. Each returns undefined when the text is not
// a valid value, so the caller can word the error with the variable's name.

/** true/false/1/0, any case, surrounding spaces ignored. */
export function parseBoolean(value: string): boolean | undefined {
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return undefined;
}

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/** Strict integer: digits only (optional sign); no "1e3", "0x10", "12px" or "". */
export function parseInteger(value: string): number | undefined {
  const v = value.trim();
  if (!INTEGER.test(v)) return undefined;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Strict decimal number: "42", "1.5", ".5"; nothing else. */
export function parseNumber(value: string): number | undefined {
  const v = value.trim();
  return DECIMAL.test(v) ? Number(v) : undefined;
}

const UNIT_SECONDS: Record<string, number> = {
  ns: 1e-9, us: 1e-6, 'µs': 1e-6, 'μs': 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600,
};
const DURATION = /^([+-]?)((?:(?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)$/;
const DURATION_PART = /(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;

/**
 * Seconds from a bare number ("90", "1.5") or a Go duration ("10s", "1h30m", "500ms", "1.5h", "2us",
 * "3µs", "4ns"). Units are required on every part of a Go duration, as in Go.
 */
export function parseDuration(value: string): number | undefined {
  const v = value.trim();
  const bare = parseNumber(v);
  if (bare !== undefined) return bare;
  const match = DURATION.exec(v);
  if (!match) return undefined;
  let seconds = 0;
  for (const part of (match[2] ?? '').matchAll(DURATION_PART)) {
    seconds += Number(part[1]) * (UNIT_SECONDS[part[2] ?? ''] ?? Number.NaN);
  }
  if (!Number.isFinite(seconds)) return undefined;
  // Round away float noise such as 0.1 + 0.2 while keeping nanosecond resolution.
  const rounded = Math.round(seconds * 1e9) / 1e9;
  return match[1] === '-' ? -rounded : rounded;
}

/** Comma-separated list: items trimmed, empty items dropped. */
export function parseList(value: string): string[] {
  return value.split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/** PASSWORD_REQUIRED_CHARACTERS: character sets separated by ':', where '\:' is a literal colon. */
export function parseRequiredCharacters(value: string): string[] {
  const sets: string[] = [];
  let current = '';
  for (let i = 0; i < value.length; i += 1) {
    const ch = value[i];
    if (ch === '\\' && value[i + 1] === ':') {
      current += ':';
      i += 1;
    } else if (ch === ':') {
      sets.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  sets.push(current);
  return sets.filter((set) => set !== '');
}

/** An absolute URL whose scheme is one of `protocols` (without the colon). */
export function isUrl(value: string, protocols: readonly string[] = ['http', 'https']): boolean {
  try {
    const url = new URL(value);
    return protocols.includes(url.protocol.slice(0, -1));
  } catch {
    return false;
  }
}

/** Quote a value for an error message (JSON style, long values cut). */
export function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
}

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
