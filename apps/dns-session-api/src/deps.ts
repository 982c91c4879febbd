import type { Logger } from 'pino';
import type { Telemetry } from '@keyzone/telemetry';
import type { DnsConfig } from '@keyzone/config';
import { systemClock, type Clock } from './clock';
import type { Db } from './queries/db';
import type { AuditHook } from './services/audit/audit-hook';
import { createDbAudit } from './services/audit/audit';
import { AuthTokens } from './services/access/auth-tokens';
import { OidcSignIn } from './services/access/oidc-sign-in';
import { Publisher } from './publishing/publisher';
import { publishingAudit } from './publishing/queue';

/** The one object handed down from main.ts (or a test) to createApp: no module reads globals. */
export interface Deps {
  config: DnsConfig;
  db: Db;
  clock: Clock;
  log: Logger;
  /** Called by every user/group (and zone/record/nameserver) write inside its transaction. */
  audit: AuditHook;
  /** The auth server's access tokens (auth.yml enabled), else undefined. */
  authTokens: AuthTokens | undefined;
  /** Signing in with an OpenID Connect provider (auth.yml oidc enabled), else undefined. */
  oidc: OidcSignIn | undefined;
  /** Tracing and metrics (telemetry.yml); undefined when both are off or in tests. */
  telemetry?: Telemetry;
  /** Zone publishing (publish.yml enabled): main.ts starts it; requests kick it after they answer. */
  publisher: Publisher | undefined;
  /** The refresher of zones kept as secondaries of outside primaries (cli/serve.ts sets it): kicked by a NOTIFY from a primary. */
  secondaries?: { kick(): void };
  /** The console's built pages (default dist/console; a test may point elsewhere, e.g. at a folder with no build). */
  consoleDir?: string;
}

export function buildDeps(parts: Omit<Deps, 'clock' | 'audit' | 'authTokens' | 'oidc' | 'publisher'> & Partial<Pick<Deps, 'clock' | 'audit'>>): Deps {
  const clock = parts.clock ?? systemClock;
  const authTokens = parts.config.auth.enabled ? new AuthTokens(parts.config.auth, parts.db, clock) : undefined;
  const { auth, session } = parts.config;
  const oidc = auth.oidc ? new OidcSignIn(auth.oidc, auth, session.secret, parts.db, clock, parts.log) : undefined;
  // The audit history (services/audit.ts) records every user, group, zone, record and nameserver change; with
  // publishing on, the same hook queues a publish job for every zone change, in the change's transaction.
  const audit = parts.audit ?? createDbAudit(clock);
  if (!parts.config.publish.enabled) return { ...parts, clock, audit, authTokens, oidc, publisher: undefined };
  const publisher = new Publisher({ db: parts.db, config: parts.config, clock, log: parts.log });
  return { ...parts, clock, audit: publishingAudit(audit, parts.config.publish, clock), authTokens, oidc, publisher };
}
