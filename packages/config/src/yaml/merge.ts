// NicTool-style section merge: the environment section over `default`; objects merge recursively, a key
// that is missing or null in the environment section keeps the default, arrays and scalars replace.

export type Plain = Record<string, unknown>;

export function isPlainObject(value: unknown): value is Plain {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Remove null values (YAML `key:` with nothing after it) so schema defaults apply. */
export function stripNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripNulls);
  if (!isPlainObject(value)) return value;
  const out: Plain = {};
  for (const [key, v] of Object.entries(value)) if (v !== null && v !== undefined) out[key] = stripNulls(v);
  return out;
}

export function deepMerge(base: unknown, override: unknown): unknown {
  if (override === null || override === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(override)) return override;
  const out: Plain = { ...base };
  for (const [key, value] of Object.entries(override)) out[key] = deepMerge(base[key], value);
  return out;
}

export function getPath(value: unknown, keys: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of keys) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
