// What the service mails: one kind per message (the config's MailKind), the variables each kind's
// template may use (spec Part 1), and the built-in default bodies used when no template URL is set
// or it cannot be loaded. Bodies follow GoTrue's defaults; every token mail carries link and code.
import type { MailKind } from '@keyzone/config';

export type { MailKind };

/** Template variables, named as in GoTrue's Go templates ({{ .ConfirmationURL }}). */
export interface TemplateData {
  SiteURL: string;
  ConfirmationURL?: string;
  Token?: string;
  TokenHash?: string;
  RedirectTo?: string;
  Email?: string;
  NewEmail?: string;
  OldEmail?: string;
  Phone?: string;
  OldPhone?: string;
  Provider?: string;
  FactorType?: string;
}

/** One message to send: the kind decides subject and template; data fills the variables. */
export interface OutgoingMail {
  kind: MailKind;
  to: string;
  data: TemplateData;
}

/** Kinds that carry a one-time token (link and numeric code). */
export const TOKEN_MAIL_KINDS = ['invite', 'confirmation', 'recovery', 'magicLink', 'emailChange', 'reauthentication'] as const;
export type TokenMailKind = (typeof TOKEN_MAIL_KINDS)[number];

/** Human label used in "Error sending <label> email" (GoTrue's messages). */
export const MAIL_LABELS: Record<MailKind, string> = {
  invite: 'invite',
  confirmation: 'confirmation',
  recovery: 'recovery',
  magicLink: 'magic link',
  emailChange: 'email change',
  reauthentication: 'reauthentication',
  passwordChangedNotification: 'password changed notification',
  emailChangedNotification: 'email changed notification',
  phoneChangedNotification: 'phone changed notification',
  identityLinkedNotification: 'identity linked notification',
  identityUnlinkedNotification: 'identity unlinked notification',
  mfaFactorEnrolledNotification: 'MFA factor enrolled notification',
  mfaFactorUnenrolledNotification: 'MFA factor unenrolled notification',
};

const code = '<p>Alternatively, enter the code: {{ .Token }}</p>';

export const DEFAULT_BODIES: Record<MailKind, string> = {
  confirmation:
    '<h2>Confirm your email</h2><p>Follow this link to confirm your email:</p>' +
    `<p><a href="{{ .ConfirmationURL }}">Confirm your email address</a></p>${code}`,
  invite:
    '<h2>You have been invited</h2><p>You have been invited to create a user on {{ .SiteURL }}. ' +
    'Follow this link to accept the invite:</p>' +
    `<p><a href="{{ .ConfirmationURL }}">Accept the invite</a></p>${code}`,
  recovery:
    '<h2>Reset password</h2><p>Follow this link to reset the password for your user:</p>' +
    `<p><a href="{{ .ConfirmationURL }}">Reset password</a></p>${code}`,
  magicLink:
    '<h2>Magic Link</h2><p>Follow this link to login:</p>' +
    `<p><a href="{{ .ConfirmationURL }}">Log In</a></p>${code}`,
  emailChange:
    '<h2>Confirm email address change</h2><p>Follow this link to confirm the update of your email address ' +
    'from {{ .Email }} to {{ .NewEmail }}:</p>' +
    `<p><a href="{{ .ConfirmationURL }}">Change email address</a></p>${code}`,
  reauthentication: '<h2>Confirm reauthentication</h2><p>Enter the code: {{ .Token }}</p>',
  passwordChangedNotification:
    '<h2>Your password has been changed</h2><p>The password for your account {{ .Email }} has just been changed. ' +
    'If you did not make this change, please contact support immediately.</p>',
  emailChangedNotification:
    '<h2>Your email address has been changed</h2><p>The email address of your account has been changed from ' +
    '{{ .OldEmail }} to {{ .Email }}. If you did not make this change, please contact support immediately.</p>',
  phoneChangedNotification:
    '<h2>Your phone number has been changed</h2><p>The phone number of your account {{ .Email }} has been changed ' +
    'from {{ .OldPhone }} to {{ .Phone }}. If you did not make this change, please contact support immediately.</p>',
  identityLinkedNotification:
    '<h2>A new identity has been linked</h2><p>A new {{ .Provider }} identity has been linked to your account ' +
    '{{ .Email }}. If you did not make this change, please contact support immediately.</p>',
  identityUnlinkedNotification:
    '<h2>An identity has been unlinked</h2><p>The {{ .Provider }} identity has been removed from your account ' +
    '{{ .Email }}. If you did not make this change, please contact support immediately.</p>',
  mfaFactorEnrolledNotification:
    '<h2>A new verification method has been added</h2><p>A new {{ .FactorType }} factor has been added to your ' +
    'account {{ .Email }}. If you did not make this change, please contact support immediately.</p>',
  mfaFactorUnenrolledNotification:
    '<h2>A verification method has been removed</h2><p>A {{ .FactorType }} factor has been removed from your ' +
    'account {{ .Email }}. If you did not make this change, please contact support immediately.</p>',
};
