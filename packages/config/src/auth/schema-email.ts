// SMTP and mailer settings: subjects, templates, URL paths and notification switches (spec Part 1, "Email").
import { MAIL_KINDS, NOTIFICATION_KINDS } from './schema';
import type { MailKind, MailerConfig, NotificationKind, SmtpConfig } from './schema';
import type { EnvReader } from './env-reader';

export const DEFAULT_SUBJECTS: Readonly<Record<MailKind, string>> = Object.freeze({
  invite: "You've been invited",
  confirmation: 'Confirm your email address',
  recovery: 'Reset your password',
  magicLink: 'Your sign-in link',
  emailChange: 'Confirm your new email address',
  reauthentication: '{{ .Token }} is your verification code',
  passwordChangedNotification: 'Your password was changed',
  emailChangedNotification: 'Your email address was changed',
  phoneChangedNotification: 'Your phone number was changed',
  identityLinkedNotification: 'A new sign-in method was linked to your account',
  identityUnlinkedNotification: 'A sign-in method was removed from your account',
  mfaFactorEnrolledNotification: 'A new verification method was added to your account',
  mfaFactorUnenrolledNotification: 'A verification method was removed from your account',
});

/** magicLink → MAGIC_LINK */
export function envKind(kind: string): string {
  return kind.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();
}

export function readSmtp(r: EnvReader): SmtpConfig {
  const host = r.string('SMTP_HOST')?.trim();
  if (host !== undefined) r.requireWhen(['SMTP_ADMIN_EMAIL', 'SMTP_PORT'], `${r.display('SMTP_HOST')} is set`);
  const adminEmail = r.read('SMTP_ADMIN_EMAIL', 'an email address',
    (raw) => (/^[^\s@]+@[^\s@]+$/.test(raw.trim()) ? raw.trim() : undefined));
  return {
    host,
    port: r.int('SMTP_PORT', { min: 1, max: 65535 }),
    user: r.string('SMTP_USER'),
    pass: r.string('SMTP_PASS'),
    adminEmail,
    senderName: r.string('SMTP_SENDER_NAME') ?? adminEmail,
    maxFrequency: r.duration('SMTP_MAX_FREQUENCY') ?? 900,
  };
}

export function readMailer(r: EnvReader): MailerConfig {
  const subjects = {} as Record<MailKind, string>;
  const templates = {} as Record<MailKind, string | undefined>;
  for (const kind of MAIL_KINDS) {
    subjects[kind] = r.string(`MAILER_SUBJECTS_${envKind(kind)}`) ?? DEFAULT_SUBJECTS[kind];
    templates[kind] = r.url(`MAILER_TEMPLATES_${envKind(kind)}`);
  }
  const notifications = {} as Record<NotificationKind, boolean>;
  for (const kind of NOTIFICATION_KINDS) {
    notifications[kind] = r.bool(`MAILER_NOTIFICATIONS_${envKind(kind)}_ENABLED`) ?? false;
  }
  return {
    autoconfirm: r.bool('MAILER_AUTOCONFIRM') ?? false,
    otpExp: r.int('MAILER_OTP_EXP', { min: 1 }) ?? 86400,
    otpLength: r.int('MAILER_OTP_LENGTH', { min: 6, max: 10 }) ?? 6,
    secureEmailChangeEnabled: r.bool('MAILER_SECURE_EMAIL_CHANGE_ENABLED') ?? true,
    urlPaths: {
      invite: r.string('MAILER_URLPATHS_INVITE')?.trim() ?? '/verify',
      confirmation: r.string('MAILER_URLPATHS_CONFIRMATION')?.trim() ?? '/verify',
      recovery: r.string('MAILER_URLPATHS_RECOVERY')?.trim() ?? '/verify',
      emailChange: r.string('MAILER_URLPATHS_EMAIL_CHANGE')?.trim() ?? '/verify',
    },
    subjects,
    templates,
    notifications,
  };
}
