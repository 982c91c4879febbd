// At start-up a service may come up before its database (Compose, Kubernetes, a restarted host): it waits for
// PostgreSQL to answer instead of exiting at once, saying so while it waits. Any other error (bad password, no
// such database) is not a matter of waiting and is thrown at once.
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import { isDatabaseUnavailable } from './errors';

export interface WaitForDatabaseOptions {
  /** Give up after this long (ms); default 60 000. */
  timeoutMs?: number;
  /** Pause between tries (ms); default 1 000. */
  intervalMs?: number;
  /** Hears about each failed try (to log "waiting for the database"). */
  onWait?: (err: unknown, waitedMs: number) => void;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function waitForDatabase(db: Kysely<any>, options: WaitForDatabaseOptions = {}): Promise<void> {
  const started = Date.now();
  const timeoutMs = options.timeoutMs ?? 60_000;
  for (;;) {
    try {
      await sql`select 1`.execute(db);
      return;
    } catch (err) {
      const waited = Date.now() - started;
      if (!isDatabaseUnavailable(err) || waited >= timeoutMs) throw err;
      options.onWait?.(err, waited);
      await sleep(options.intervalMs ?? 1000);
    }
  }
}
