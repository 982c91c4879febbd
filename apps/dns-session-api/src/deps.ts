import type { Logger } from 'pino';
import type { Telemetry } from '@keyzone/telemetry';
import type { DnsConfig } from '@keyzone/config';
import type { Db } from './queries/db';
import type { AuditHook } from './services/audit-hook';
import { createDbAudit } from './services/audit';
import { AuthTokens } from './services/auth-tokens';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

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
  /** Tracing and metrics (telemetry.yml); undefined when both are off or in tests. */
  telemetry?: Telemetry;
}

export function buildDeps(parts: Omit<Deps, 'clock' | 'audit' | 'authTokens'> & Partial<Pick<Deps, 'clock' | 'audit'>>): Deps {
  const clock = parts.clock ?? systemClock;
  const authTokens = parts.config.auth.enabled ? new AuthTokens(parts.config.auth, parts.db, clock) : undefined;
  // The audit history (services/audit.ts) records every user, group, zone, record and nameserver change.
  return { ...parts, clock, audit: parts.audit ?? createDbAudit(clock), authTokens };
}
