// Looks settings up by their unprefixed name and coerces them, collecting every problem instead of
// stopping at the first. Precedence for one setting (first non-empty wins):
//   AUTH_<NAME>, AUTH_<SYNONYM>, GOTRUE_<NAME>, GOTRUE_<SYNONYM>, then <NAME> for the few names accepted
//   unprefixed, then options.defaults[<NAME>] / [<SYNONYM>].
// The environment has already been merged over .env per variable name, so a variable set in the
// environment replaces the same variable in .env.
import {
  isUrl, parseBoolean, parseDuration, parseInteger, parseList, parseNumber, quote,
} from '../coerce';

export const PREFIX = 'AUTH_';
export const ALIAS_PREFIX = 'GOTRUE_';

/** Names also read without a prefix (prefixed forms win). */
const UNPREFIXED = new Set([
  'PORT', 'DATABASE_URL', 'LOG_LEVEL',
  // GoTrue reads this one unprefixed, and its own deployments set it that way.
  'API_EXTERNAL_URL',
  'OTEL_EXPORTER_PROMETHEUS_HOST', 'OTEL_EXPORTER_PROMETHEUS_PORT', 'OTEL_RESOURCE_ATTRIBUTES',
  // Telemetry switches are named alike for both services, so one deployment file sets them for both.
  'TRACING_ENABLED', 'TRACING_EXPORTER', 'METRICS_ENABLED', 'METRICS_EXPORTER', 'DEBUG',
]);
const SYNONYMS: Record<string, string[]> = { PORT: ['API_PORT'], DATABASE_URL: ['DB_DATABASE_URL'] };

/** Values never echoed in messages. */
export function isSecretName(name: string): boolean {
  return /(_SECRET|_SECRETS|_PASS|_PASSWORD|_KEYS|_KEY|_TOKEN)$/.test(name) || /DATABASE_URL$/.test(name);
}

/** A parse failure with its own wording of what was expected. */
export class Invalid {
  constructor(readonly expected: string) {}
}

export interface ReadOptions { required?: boolean }
type Out<T, O> = O extends { required: true } ? T : T | undefined;
type Found = { value: string; source: string };

export class EnvReader {
  readonly problems: string[] = [];

  constructor(
    private readonly vars: Record<string, string | undefined>,
    private readonly defaults: Record<string, string | undefined>,
  ) {}

  /** The raw value and the variable it came from, or undefined when unset or blank. */
  find(name: string): Found | undefined {
    const names = [name, ...(SYNONYMS[name] ?? [])];
    const candidates = [
      ...names.map((n) => PREFIX + n),
      ...names.map((n) => ALIAS_PREFIX + n),
      ...(UNPREFIXED.has(name) ? [name] : []),
    ];
    for (const source of candidates) {
      const value = this.vars[source];
      if (value !== undefined && value.trim() !== '') return { value, source };
    }
    for (const source of names) {
      const value = this.defaults[source];
      if (value !== undefined && value.trim() !== '') return { value, source };
    }
    return undefined;
  }

  isSet(name: string): boolean {
    return this.find(name) !== undefined;
  }

  /** The name to show in a message: the variable as the user wrote it, else AUTH_<NAME>. */
  display(name: string): string {
    return this.find(name)?.source ?? PREFIX + name;
  }

  /** How to name a missing setting: the unprefixed form where it is read too (DATABASE_URL), as the README does. */
  missingName(name: string): string {
    return UNPREFIXED.has(name) ? `${name} (or ${PREFIX}${name})` : PREFIX + name;
  }

  problem(message: string): void {
    this.problems.push(message);
  }

  requireWhen(names: string[], condition: string): void {
    for (const name of names) {
      if (!this.isSet(name)) this.problem(`${this.missingName(name)}: required when ${condition}`);
    }
  }

  /**
   * Core: find, parse, and on failure record `NAME: expected <expected>, got "<raw>"` (raw hidden for
   * secrets). A parser may return Invalid to word the expectation for that particular failure.
   */
  read<T, O extends ReadOptions>(
    name: string, expected: string, parse: (raw: string) => T | Invalid | undefined, options?: O,
  ): Out<T, O> {
    const found = this.find(name);
    if (!found) {
      if (options?.required) this.problem(`${this.missingName(name)}: required`);
      return undefined as Out<T, O>;
    }
    const value = parse(found.value);
    if (value === undefined || value instanceof Invalid) {
      const got = isSecretName(name) ? '' : `, got ${quote(found.value)}`;
      this.problem(`${found.source}: expected ${value instanceof Invalid ? value.expected : expected}${got}`);
      return undefined as Out<T, O>;
    }
    return value as Out<T, O>;
  }

  string<O extends ReadOptions>(name: string, options?: O): Out<string, O> {
    return this.read(name, 'a string', (raw) => raw, options);
  }

  url<O extends ReadOptions & { protocols?: string[] }>(name: string, options?: O): Out<string, O> {
    const protocols = options?.protocols ?? ['http', 'https'];
    const names = protocols.length > 1 ? `${protocols.slice(0, -1).join(', ')} or ${protocols[protocols.length - 1]}` : protocols.join('');
    const expected = `an absolute ${names} URL`;
    return this.read(name, expected, (raw) => (isUrl(raw.trim(), protocols) ? raw.trim() : undefined), options);
  }

  bool<O extends ReadOptions>(name: string, options?: O): Out<boolean, O> {
    return this.read(name, 'a boolean (true, false, 1 or 0)', parseBoolean, options);
  }

  int<O extends ReadOptions & { min?: number; max?: number }>(name: string, options?: O): Out<number, O> {
    const { min, max } = options ?? {};
    return this.read(name, 'a number', (raw) => {
      const n = parseInteger(raw);
      if (n === undefined) return parseNumber(raw) === undefined ? undefined : new Invalid('a whole number');
      const outside = (min !== undefined && n < min) || (max !== undefined && n > max);
      return outside ? new Invalid(describeRange(min, max)) : n;
    }, options);
  }

  /** Seconds, from a number or a Go duration ("10s", "1h30m"). Never negative. */
  duration<O extends ReadOptions>(name: string, options?: O): Out<number, O> {
    return this.read(name, 'a duration in seconds or Go style (e.g. 90, 10s, 1h30m)', (raw) => {
      const n = parseDuration(raw);
      return n === undefined || n < 0 ? undefined : n;
    }, options);
  }

  oneOf<V extends string, O extends ReadOptions>(name: string, values: readonly V[], options?: O): Out<V, O> {
    const expected = values.length === 1 ? quote(values[0] ?? '') : `one of ${values.join(', ')}`;
    return this.read(name, expected, (raw) => values.find((v) => v === raw.trim().toLowerCase()), options);
  }

  list(name: string): string[] | undefined {
    return this.read(name, 'a comma-separated list', parseList);
  }
}

function describeRange(min?: number, max?: number): string {
  if (min !== undefined && max !== undefined) return `a number from ${min} to ${max}`;
  if (min !== undefined) return `a number of at least ${min}`;
  return `a number of at most ${max}`;
}
