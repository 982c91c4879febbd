// How mail leaves the process, separate from what is sent (mailer.ts). SMTP through nodemailer;
// without SMTP outside production a log transport writes subject, recipient, link and code so a
// developer can finish any flow from the console; in production without SMTP every send fails
// with a clear message instead of silently dropping mail.
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { MailKind } from './kinds';

export interface Envelope {
  /** Display name and address; nodemailer quotes and encodes the name. */
  from: { name: string; address: string };
  to: string;
  subject: string;
  html: string;
  /** What a developer needs to finish the flow; only the log transport shows it. */
  preview: { kind: MailKind; link?: string; code?: string };
}

export interface MailTransport {
  readonly name: 'smtp' | 'log' | 'unconfigured';
  send(envelope: Envelope): Promise<{ messageId: string }>;
  /** A round trip to the mail server without sending (connect, greet, authenticate, quit). */
  probe(): Promise<void>;
  close(): void;
}

export interface SmtpSettings {
  host: string;
  port: number;
  user?: string | undefined;
  pass?: string | undefined;
}

/** SMTP: implicit TLS on 465, otherwise STARTTLS whenever the server offers it (nodemailer's default). */
export function createSmtpTransport(settings: SmtpSettings): MailTransport {
  const transporter = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.port === 465,
    auth: settings.user ? { user: settings.user, pass: settings.pass ?? '' } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    name: 'smtp',
    async send(envelope) {
      const info = await transporter.sendMail({
        from: envelope.from,
        to: envelope.to,
        subject: envelope.subject,
        html: envelope.html,
      });
      return { messageId: String(info.messageId ?? '') };
    },
    async probe() {
      await transporter.verify();
    },
    close() {
      transporter.close();
    },
  };
}

let logMessageCounter = 0;

/** Development without SMTP: the message is logged, never sent. */
export function createLogTransport(log: Logger): MailTransport {
  return {
    name: 'log',
    async send(envelope) {
      logMessageCounter += 1;
      const messageId = `<log-${Date.now()}-${logMessageCounter}@keyzone.local>`;
      log.info(
        {
          mail: {
            kind: envelope.preview.kind,
            to: envelope.to,
            subject: envelope.subject,
            actionLink: envelope.preview.link,
            emailOtp: envelope.preview.code,
          },
        },
        'SMTP is not configured: mail logged instead of sent',
      );
      return { messageId };
    },
    async probe() {},
    close() {},
  };
}

/** Production without SMTP: refuse, so a flow never claims a mail went out. */
export function createUnconfiguredTransport(): MailTransport {
  return {
    name: 'unconfigured',
    async send() {
      throw new Error('SMTP is not configured (set SMTP_HOST, SMTP_PORT and SMTP_ADMIN_EMAIL)');
    },
    async probe() {},
    close() {},
  };
}
