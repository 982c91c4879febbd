// The one object handed down from main.ts (or a test) to createApp and every service.
// Nothing in src/ reads process.env or opens connections except main.ts.
import type { AuthConfig } from '@keyzone/config';
import type { AuthDatabase } from '@keyzone/db';
import type { JwtService } from '@keyzone/tokens';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Telemetry } from '@keyzone/telemetry';
import type { Mailer } from './mail/mailer';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** One outgoing SMS; returns the provider's message id. */
export interface SmsSender {
  send(message: { to: string; body: string; channel?: 'sms' | 'whatsapp' }): Promise<{ messageId?: string }>;
}

export type AuthDb = Kysely<AuthDatabase>;

export interface Deps {
  config: AuthConfig;
  db: AuthDb;
  jwt: JwtService;
  /** src/mail/ (SMTP, or the log transport in development); undefined when not wired. */
  mailer: Mailer | undefined;
  sms: SmsSender | undefined;
  clock: Clock;
  log: Logger;
  /** Tracing and metrics (TRACING_ENABLED / METRICS_ENABLED); undefined when both are off or in tests. */
  telemetry?: Telemetry;
}
