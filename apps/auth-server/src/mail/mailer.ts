// The Mailer decides what is sent: subject and body per kind, rendered from config, and the action
// links inside them. The transport (transport.ts) decides how it leaves the process.
import type { AuthConfig, NotificationKind } from '@keyzone/config';
import type { Logger } from 'pino';
import { ApiError, ErrorCode } from '../errors';
import { MAIL_LABELS, type OutgoingMail } from './kinds';
import { buildActionLink, type ActionLinkParams, type LinkKind } from './links';
import { renderHtml, renderSubject } from './render';
import { TemplateStore } from './templates';
import type { AuthDb } from '../queries/db';
import { insertQueuedJob, insertQueuedMail } from '../queries/mail-outbox';
import type { Executor } from '../queries/users';
import { MailOutbox, type OutboxOptions } from './outbox';
import { createLogTransport, createSmtpTransport, createUnconfiguredTransport, type Envelope, type MailTransport } from './transport';

export type MailerConfig = Pick<AuthConfig, 'siteUrl' | 'api' | 'smtp' | 'mailer'>;

export type { ActionLinkParams, LinkKind };

export class Mailer {
  constructor(
    private readonly config: MailerConfig,
    readonly transport: MailTransport,
    private readonly templates: TemplateStore,
    private readonly log: Logger,
    /** Delivery of queued mail; undefined when the mailer was built without a database. */
    readonly outbox?: MailOutbox,
  ) {}

  /** `{API_EXTERNAL_URL}{MAILER_URLPATHS_<KIND>}?token=<hash>&type=<type>&redirect_to=<url>` */
  actionLink(kind: LinkKind, params: ActionLinkParams): string {
    return buildActionLink(this.config, kind, params);
  }

  notificationEnabled(kind: NotificationKind): boolean {
    return this.config.mailer.notifications[kind];
  }

  private refuseUnconfigured(mail: OutgoingMail): void {
    if (this.transport.name === 'unconfigured') {
      this.log.error({ mailKind: mail.kind }, 'mail requested but SMTP is not configured (SMTP_HOST, SMTP_PORT, SMTP_ADMIN_EMAIL)');
      throw new ApiError(500, ErrorCode.unexpected_failure, 'Email sending is not configured on this server');
    }
  }

  private async render(mail: OutgoingMail): Promise<Envelope> {
    const subject = renderSubject(this.config.mailer.subjects[mail.kind], mail.data);
    const html = renderHtml(await this.templates.body(mail.kind), mail.data);
    const adminEmail = this.config.smtp.adminEmail ?? 'noreply@localhost';
    const senderName = this.config.smtp.senderName ?? adminEmail;
    return {
      from: { name: senderName, address: adminEmail },
      to: mail.to,
      subject,
      html,
      preview: { kind: mail.kind, link: mail.data.ConfirmationURL, code: mail.data.Token },
    };
  }

  /**
   * Renders the message and queues it in the caller's transaction (mail/outbox.ts sends it once
   * the request is done). The answer therefore does not wait for, or depend on, the mail server.
   */
  async queue(tx: Executor, mail: OutgoingMail): Promise<void> {
    this.refuseUnconfigured(mail);
    if (!this.outbox) throw new Error('Mailer.queue needs a mailer created with a database');
    const envelope = await this.render(mail);
    await insertQueuedMail(tx, { kind: mail.kind, recipient: mail.to, envelope });
    this.outbox.noteQueued();
  }

  /** Queues a job for the outbox worker (it runs after the answer; see MailOutbox.handle). */
  async queueJob(tx: Executor, job: { name: string; recipient: string; payload: Record<string, unknown> }): Promise<void> {
    if (!this.outbox) throw new Error('Mailer.queueJob needs a mailer created with a database');
    await insertQueuedJob(tx, job);
    this.outbox.noteQueued();
  }

  /** Renders and sends one message now. A failure becomes 500 unexpected_failure; the cause is logged. */
  async send(mail: OutgoingMail): Promise<{ messageId: string }> {
    this.refuseUnconfigured(mail);
    const envelope = await this.render(mail);
    try {
      return await this.transport.send(envelope);
    } catch (err) {
      const reply = err as { response?: string; responseCode?: number };
      this.log.error(
        { mailKind: mail.kind, transport: this.transport.name, smtpReply: reply.response, smtpCode: reply.responseCode, err: (err as Error).message },
        'sending mail failed',
      );
      throw new ApiError(500, ErrorCode.unexpected_failure, `Error sending ${MAIL_LABELS[mail.kind]} email`, { cause: err });
    }
  }

  /** Stops delivery (waiting for a send in progress) and closes the transport. */
  async close(): Promise<void> {
    await this.outbox?.stop();
    this.transport.close();
  }
}

export interface CreateMailerOptions {
  config: MailerConfig;
  log: Logger;
  /** Production refuses to run mail flows without SMTP instead of logging the messages. */
  production: boolean;
  now?: () => number;
  /** Overrides the transport chosen from config (tests of send failures). */
  transport?: MailTransport;
  /** Where queued mail is kept (auth.mail_outbox); without it the mailer only sends directly. */
  db?: AuthDb;
  outbox?: OutboxOptions;
  /** Called after each message the transport accepted (the emails_sent metric). */
  onSent?: () => void;
}

export function createMailer(options: CreateMailerOptions): Mailer {
  const { config, log } = options;
  const smtp = config.smtp;
  const transport =
    options.transport ??
    (smtp.host
      ? createSmtpTransport({ host: smtp.host, port: smtp.port ?? 587, user: smtp.user, pass: smtp.pass })
      : options.production
        ? createUnconfiguredTransport()
        : createLogTransport(log));
  const counted: MailTransport = options.onSent ? withSentHook(transport, options.onSent) : transport;
  const templates = new TemplateStore({ urls: config.mailer.templates, log, now: options.now });
  const outbox = options.db ? new MailOutbox(options.db, counted, log, options.outbox) : undefined;
  return new Mailer(config, counted, templates, log, outbox);
}

function withSentHook(transport: MailTransport, onSent: () => void): MailTransport {
  return Object.assign(Object.create(transport) as MailTransport, {
    async send(...args: Parameters<MailTransport['send']>) {
      const result = await transport.send(...args);
      onSent();
      return result;
    },
  });
}
