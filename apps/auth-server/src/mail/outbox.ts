// Delivery of queued mail (issue 11). Flows put the rendered message into auth.mail_outbox in
// their own transaction, so the answer never waits for SMTP (its time would tell a known address
// from an unknown one) and a message is queued exactly when the flow commits. This worker sends
// queued messages right after a request that queued one, on a poll for other instances' rows,
// and retries failures with exponential backoff; a message is deleted once sent, so the plain
// code it carries is kept no longer than needed.
import type { Logger } from 'pino';
import type { AuthDb } from '../deps';
import { claimDueMail, deferQueuedMail, deleteQueuedMail, msUntilNextMail } from '../queries/mail-outbox';
import type { MailTransport } from './transport';

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
      const batch = await claimDueMail(this.db, BATCH, LEASE_SECONDS);
      for (const mail of batch) await this.deliver(mail.id, mail.envelope, mail.attempts);
      if (batch.length < BATCH) break;
    }
    this.scheduleRetry(await msUntilNextMail(this.db));
  }

  private async deliver(id: string, envelope: Parameters<MailTransport['send']>[0], attempts: number): Promise<void> {
    try {
      await this.transport.send(envelope);
      await deleteQueuedMail(this.db, id);
    } catch (err) {
      const reply = err as { response?: string; responseCode?: number; message?: string };
      const context = { mailKind: envelope.preview.kind, transport: this.transport.name, attempts, smtpReply: reply.response, smtpCode: reply.responseCode, err: reply.message };
      if (attempts >= this.maxAttempts) {
        this.log.error(context, 'sending mail failed for the last time: message dropped');
        await deleteQueuedMail(this.db, id);
        return;
      }
      this.log.warn(context, 'sending mail failed: will retry');
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
