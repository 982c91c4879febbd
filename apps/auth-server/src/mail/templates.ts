// Template bodies: MAILER_TEMPLATES_<KIND> is an http(s) URL of an HTML template. It is fetched with
// a timeout and cached; when it cannot be loaded the built-in default is used and a warning logged
// (a broken template host must not stop sign-ups). Failures are retried after a short delay.
import type { Logger } from 'pino';
import type { MailKind } from './kinds';
import { DEFAULT_BODIES } from './kinds';

export interface TemplateStoreOptions {
  urls: Readonly<Record<MailKind, string | undefined>>;
  log: Logger;
  /** Milliseconds since the epoch; injected so tests control cache expiry. */
  now?: () => number;
  fetchTimeoutMs?: number;
  /** How long a loaded template stays cached. */
  cacheTtlMs?: number;
  /** How long after a failed load the default is used before fetching again. */
  retryAfterMs?: number;
}

interface CacheEntry {
  body: string;
  expiresAt: number;
}

export class TemplateStore {
  private readonly cache = new Map<MailKind, CacheEntry>();
  private readonly inFlight = new Map<MailKind, Promise<string>>();
  private readonly now: () => number;

  constructor(private readonly options: TemplateStoreOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The body template for a kind: the configured URL's content, else the built-in default. */
  async body(kind: MailKind): Promise<string> {
    const url = this.options.urls[kind];
    if (!url) return DEFAULT_BODIES[kind];
    const cached = this.cache.get(kind);
    if (cached && cached.expiresAt > this.now()) return cached.body;
    let pending = this.inFlight.get(kind);
    if (!pending) {
      pending = this.load(kind, url).finally(() => this.inFlight.delete(kind));
      this.inFlight.set(kind, pending);
    }
    return pending;
  }

  private async load(kind: MailKind, url: string): Promise<string> {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(this.options.fetchTimeoutMs ?? 10_000) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const body = await response.text();
      if (body.trim() === '') throw new Error('empty template');
      this.cache.set(kind, { body, expiresAt: this.now() + (this.options.cacheTtlMs ?? 10 * 60_000) });
      return body;
    } catch (err) {
      this.options.log.warn(
        { kind, templateUrl: url, err: err instanceof Error ? err.message : String(err) },
        'mail template could not be loaded; using the built-in default',
      );
      const body = DEFAULT_BODIES[kind];
      this.cache.set(kind, { body, expiresAt: this.now() + (this.options.retryAfterMs ?? 60_000) });
      return body;
    }
  }
}
