// redirect_to allow-list (reference §6.4). An invalid redirect is never an error: it silently
// falls back to SITE_URL, exactly as GoTrue does, so callers only ever get a usable URL back.
// GoTrue matches each glob against the raw string, so `https://evil?.trusted.example/` passes
// `https://*.trusted.example/**` while the browser goes to host `evil`. Here the candidate is parsed with the
// WHATWG URL parser (what browsers use): the scheme must equal the entry's, its host[:port] must match the entry's
// host glob and its path the entry's path glob; a query is allowed only below a path ending in a wildcard.
// Percent-escapes and non-ASCII characters in the host part are refused outright, since the parser decodes and
// folds them (evil%2eexample, evil。example) into hosts nobody listed.

export interface RedirectSettings {
  siteUrl: string;
  uriAllowList: readonly string[];
}

export interface RedirectSources {
  /** `redirect_to` query parameter (what auth-js sends). */
  query?: unknown;
  /** `redirect_to` field of the JSON body (generate_link, verify). */
  body?: unknown;
  /** `redirect_to` request header. */
  header?: unknown;
  /** Referer header: used only when it is itself allowed. */
  referer?: unknown;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * Compiles a gobwas/glob pattern with separators `.` and `/` into an anchored regular expression:
 * `*` stays within one host label or path segment, `**` crosses them, `?` is one non-separator
 * character, `[abc]` / `[!abc]` / `[a-z]` are character classes and `{a,b}` alternatives.
 */
export function compileAllowListGlob(pattern: string): RegExp {
  let i = 0;
  const parse = (inBraces: boolean): string => {
    let out = '';
    while (i < pattern.length) {
      const c = pattern[i]!;
      if (inBraces && (c === ',' || c === '}')) return out;
      i += 1;
      if (c === '*') {
        if (pattern[i] === '*') {
          i += 1;
          out += '.*';
        } else {
          out += '[^./]*';
        }
      } else if (c === '?') {
        out += '[^./]';
      } else if (c === '[') {
        const end = pattern.indexOf(']', i);
        if (end === -1) {
          out += '\\[';
          continue;
        }
        let body = pattern.slice(i, end);
        i = end + 1;
        const negated = body.startsWith('!');
        if (negated) body = body.slice(1);
        const escaped = body.replace(/[\\\]^]/g, (m) => `\\${m}`);
        out += negated ? `[^${escaped}./]` : `[${escaped}]`;
      } else if (c === '{') {
        const alternatives: string[] = [];
        for (;;) {
          alternatives.push(parse(true));
          const stop = pattern[i];
          i += 1;
          if (stop !== ',') break;
        }
        out += `(?:${alternatives.join('|')})`;
      } else if (c === '\\' && i < pattern.length) {
        out += escapeRegExp(pattern[i]!);
        i += 1;
      } else {
        out += escapeRegExp(c);
      }
    }
    return out;
  };
  return new RegExp(`^${parse(false)}$`);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function isIpLiteral(hostname: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) || hostname.startsWith('[');
}

/** One URI_ALLOW_LIST entry, split as URLs are: scheme, host[:port] glob, path glob; or a raw glob without `//`. */
interface AllowEntry {
  scheme?: string;
  authority?: RegExp;
  path?: RegExp;
  /** The path glob ends in a wildcard: anything below it, with any query. */
  openEnded: boolean;
  /** The entry itself names a host with `%` or non-ASCII characters (then such hosts are compared as written). */
  unusualHost: boolean;
  raw?: RegExp;
}

function compileEntry(pattern: string): AllowEntry {
  const parts = /^([a-z][a-z0-9+.-]*):\/\/([^/]*)(.*)$/i.exec(pattern);
  if (!parts) return { raw: compileAllowListGlob(pattern), openEnded: false, unusualHost: false };
  const [, scheme = '', authority = '', path = ''] = parts;
  return {
    scheme: scheme.toLowerCase(),
    authority: compileAllowListGlob(authority.toLowerCase()),
    path: compileAllowListGlob(path === '' ? '/' : path),
    openEnded: path.endsWith('*'),
    unusualHost: UNUSUAL_HOST.test(authority),
    raw: undefined,
  };
}

const UNUSUAL_HOST = /[%\u0080-\uffff]/;

/** The host part of `candidate` as written: after `scheme://`, up to the first `/`, `?` or `#`. */
function rawAuthority(candidate: string): string | undefined {
  return /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(candidate)?.[1];
}

function entryMatches(entry: AllowEntry, url: URL, candidate: string): boolean {
  if (entry.raw) return entry.raw.test(candidate.split('#')[0]!);
  if (url.protocol !== `${entry.scheme}:`) return false;
  const written = rawAuthority(candidate);
  if (written === undefined || (UNUSUAL_HOST.test(written) && !entry.unusualHost)) return false;
  const authority = url.port ? `${url.hostname}:${url.port}` : url.hostname;
  if (!entry.authority!.test(authority.toLowerCase())) return false;
  if (!entry.path!.test(url.pathname === '' ? '/' : url.pathname)) return false;
  return url.search === '' || entry.openEnded;
}

export class RedirectPolicy {
  private readonly site: URL | undefined;
  private readonly entries: AllowEntry[];

  constructor(private readonly settings: RedirectSettings) {
    this.site = parseUrl(settings.siteUrl);
    this.entries = settings.uriAllowList
      .map((p) => p.trim())
      .filter((p) => p.length > 0)
      .map(compileEntry);
  }

  /** True when `candidate` may be used as a redirect target. */
  isAllowed(candidate: string): boolean {
    // Whitespace, backslashes and control characters only serve parser differentials.
    // eslint-disable-next-line no-control-regex
    if (candidate === '' || /[\s\\\u0000-\u001f\u007f]/.test(candidate)) return false;
    const url = parseUrl(candidate);
    if (!url) return false;
    const web = url.protocol === 'http:' || url.protocol === 'https:';
    // Credentials in a redirect URL only ever serve to disguise the real host (good.com@evil.com).
    if (url.username !== '' || url.password !== '') return false;

    const site = this.site;
    if (site && url.protocol === site.protocol && url.hostname === site.hostname && !UNUSUAL_HOST.test(rawAuthority(candidate) ?? '%')) {
      if (LOOPBACK_HOSTS.has(url.hostname) || url.port === site.port) return true;
    }

    if (web) {
      const host = url.hostname;
      if (host === '' || /^\d+$/.test(host)) return false;
      if (isIpLiteral(host) && !LOOPBACK_HOSTS.has(host) && !host.startsWith('127.')) return false;
    }
    return this.entries.some((entry) => entryMatches(entry, url, candidate));
  }

  /** The validated redirect for a request: query, then body, then header, then Referer, else SITE_URL. */
  resolve(sources: RedirectSources): string {
    for (const value of [sources.query, sources.body, sources.header]) {
      if (typeof value === 'string' && value !== '') {
        return this.isAllowed(value) ? value : this.fallback(sources.referer);
      }
    }
    return this.fallback(sources.referer);
  }

  /** A single candidate (e.g. a stored flow state referrer): itself when allowed, else SITE_URL. */
  validate(candidate: string | undefined | null): string {
    return candidate && this.isAllowed(candidate) ? candidate : this.settings.siteUrl;
  }

  private fallback(referer: unknown): string {
    if (typeof referer === 'string' && referer !== '' && this.isAllowed(referer)) return referer;
    return this.settings.siteUrl;
  }
}

const policies = new WeakMap<RedirectSettings, RedirectPolicy>();

/** One compiled policy per (frozen) config object. */
export function redirectPolicyFor(settings: RedirectSettings): RedirectPolicy {
  let policy = policies.get(settings);
  if (!policy) {
    policy = new RedirectPolicy(settings);
    policies.set(settings, policy);
  }
  return policy;
}
