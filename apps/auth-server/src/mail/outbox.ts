// Delivery of queued mail (issue 11). Flows put the rendered message into auth.mail_outbox in
// their own transaction, so the answer never waits for SMTP (its time would tell a known address
// from an unknown one) and a message is queued exactly when the flow commits. This worker sends
// queued messages right after a request that queued one, on a poll for other instances' rows,
// and retries failures with exponential backoff; a message is deleted once sent, so the plain
// code it carries is kept no longer than needed.
import type { Logger } from 'pino';
import type { AuthDb } from '../queries/db';
import { claimDueMail, deferQueuedMail, deleteQueuedMail, JOB_PREFIX, msUntilNextMail, type QueuedMail } from '../queries/mail-outbox';
import type { Envelope, MailTransport } from './transport';

/** Work a flow defers to after its answer (e.g. a recovery, issue 11); may queue mail itself. */
export type OutboxJob = (payload: Record<string, unknown>) => Promise<void>;

export interface OutboxOptions {
  /** How often to look for messages queued by other instances (ms). */
  pollMs?: number;
  /** First retry delay; doubles per attempt up to maxRetryMs. */
  retryBaseMs?: number;
  maxRetryMs?: number;
  /** Attempts before a message is dropped (and logged as an error). */
  maxAttempts?: number;
}

const BATCH = 20;
/** A claimed message is someone else's to retry after this long (a sender that died). */
const LEASE_SECONDS = 300;

export class MailOutbox {
  private readonly pollMs: number;
  private readonly retryBaseMs: number;
  private readonly maxRetryMs: number;
  private readonly maxAttempts: number;
  private running: Promise<void> | undefined;
  private again = false;
  private queuedSinceRun = false;
  private timer: NodeJS.Timeout | undefined;
  private poller: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly jobs = new Map<string, OutboxJob>();

  constructor(
    private readonly db: AuthDb,
    private readonly transport: MailTransport,
    private readonly log: Logger,
    options: OutboxOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 5_000;
    this.retryBaseMs = options.retryBaseMs ?? 5_000;
    this.maxRetryMs = options.maxRetryMs ?? 3_600_000;
    this.maxAttempts = options.maxAttempts ?? 10;
  }

  /**
   * Registers the code that runs queued jobs named `name` (queries/mail-outbox.ts insertQueuedJob).
   * The first registration stays: apps built on one mailer share its outbox, and a later app (with
   * a shorter life, or another pool) must not take over the worker's jobs.
   */
  handle(name: string, job: OutboxJob): void {
    if (!this.jobs.has(name)) this.jobs.set(name, job);
  }

  /** Called by the flow that inserted a row: delivery starts once its request has finished. */
  noteQueued(): void {
    this.queuedSinceRun = true;
  }

  /** After a request: deliver what it queued (its transaction has committed by now). */
  afterRequest(): void {
    if (this.queuedSinceRun) this.kick();
  }

  /** Polls for rows of other instances and of earlier runs of this one. */
  start(): void {
    if (this.poller || this.stopped) return;
    this.poller = setInterval(() => this.kick(), this.pollMs);
    this.poller.unref();
    this.kick();
  }

  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.queuedSinceRun = false;
    this.running = this.run()
      .catch((err: unknown) => this.log.error({ err }, 'mail delivery run failed'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Waits for the delivery in progress and stops all timers. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.poller) clearInterval(this.poller);
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private async run(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      // Until nothing is due: a job may queue mail that is due at once; failures are deferred.
      const batch = await claimDueMail(this.db, BATCH, LEASE_SECONDS);
      if (batch.length === 0) break;
      for (const row of batch) await this.process(row);
    }
    this.scheduleRetry(await msUntilNextMail(this.db));
  }

  private async process(row: QueuedMail): Promise<void> {
    const { id, attempts } = row;
    const isJob = row.kind.startsWith(JOB_PREFIX);
    try {
      if (isJob) {
        const job = this.jobs.get(row.kind.slice(JOB_PREFIX.length));
        if (!job) throw new Error(`no handler for ${row.kind}`);
        await job(row.payload as Record<string, unknown>);
      } else {
        await this.transport.send(row.payload as Envelope);
      }
      await deleteQueuedMail(this.db, id);
    } catch (err) {
      const reply = err as { response?: string; responseCode?: number; message?: string };
      const context = { kind: row.kind, transport: this.transport.name, attempts, smtpReply: reply.response, smtpCode: reply.responseCode, err: reply.message };
      if (attempts >= this.maxAttempts) {
        this.log.error(context, isJob ? 'queued job failed for the last time: dropped' : 'sending mail failed for the last time: message dropped');
        await deleteQueuedMail(this.db, id);
        return;
      }
      this.log.warn(context, isJob ? 'queued job failed: will retry' : 'sending mail failed: will retry');
      const delay = Math.min(this.maxRetryMs, this.retryBaseMs * 2 ** (attempts - 1));
      await deferQueuedMail(this.db, id, delay, String(reply.response ?? reply.message ?? err));
    }
  }

  private scheduleRetry(ms: number | undefined): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (ms === undefined || this.stopped) return;
    if (this.poller && ms > this.pollMs) return; // the poll will find it
    this.timer = setTimeout(() => this.kick(), Math.max(10, ms));
    this.timer.unref();
  }
}
