// The Mailer over real SMTP (in-process catcher), templates served by a real HTTP server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { DEFAULT_SUBJECTS, type AuthConfig } from '@keyzone/config';
import { checkSmtpHost } from '../../src/mail/smtp-host-check';
import { createMailer, type MailerConfig } from '../../src/mail/mailer';
import { ApiError } from '../../src/errors';
import { DEFAULT_BODIES } from '../../src/mail/kinds';
import { TemplateStore } from '../../src/mail/templates';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp-catcher';

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(String(chunk)));
      cb();
    },
  });
  return { log: pino({ level: 'debug' }, stream), lines };
}

// The spec's default subjects, as the config package ships them.
const subjects: AuthConfig['mailer']['subjects'] = DEFAULT_SUBJECTS;
const noTemplates = Object.fromEntries(Object.keys(subjects).map((k) => [k, undefined])) as AuthConfig['mailer']['templates'];

function mailerConfig(smtp: Partial<AuthConfig['smtp']>, templates: Partial<AuthConfig['mailer']['templates']> = {}): MailerConfig {
  return {
    siteUrl: 'https://app.example.com',
    api: { host: undefined, port: 0, externalUrl: 'https://auth.example.com/auth/v1/', requestIdHeader: undefined, endpoint: undefined, trustedProxies: [] },
    smtp: { host: undefined, port: undefined, user: undefined, pass: undefined, adminEmail: 'admin@example.com', senderName: undefined, maxFrequency: 60, ...smtp },
    mailer: {
      autoconfirm: false,
      otpExp: 86400,
      otpLength: 6,
      secureEmailChangeEnabled: true,
      urlPaths: { invite: '/verify', confirmation: '/verify', recovery: '/verify', emailChange: '/verify' },
      subjects,
      templates: { ...noTemplates, ...templates },
      notifications: {
        passwordChanged: true, emailChanged: false, phoneChanged: false, identityLinked: false,
        identityUnlinked: false, mfaFactorEnrolled: false, mfaFactorUnenrolled: false,
      },
    },
  };
}

let catcher: SmtpCatcher;
let templateServer: http.Server;
let templateBase: string;
let templateFetches = 0;

beforeAll(async () => {
  catcher = await startSmtpCatcher({ user: 'mailer', pass: 's3cret' });
  templateServer = http.createServer((req, res) => {
    templateFetches += 1;
    if (req.url === '/hang.html') return; // never answers: the fetch timeout must end it
    if (req.url === '/recovery.html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<p>Custom {{ .Email }} {{.ConfirmationURL}} code={{ .Token }} hash={{ .TokenHash }}</p>');
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => templateServer.listen(0, '127.0.0.1', resolve));
  templateBase = `http://127.0.0.1:${(templateServer.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await catcher.close();
  templateServer.closeAllConnections();
  await new Promise((resolve) => templateServer.close(resolve));
});

describe('Mailer', () => {
  it('builds action links on API_EXTERNAL_URL with the kind URL path, escaping redirect_to only when needed', () => {
    const { log } = capturingLogger();
    const mailer = createMailer({ config: mailerConfig({}), log, production: false });
    expect(mailer.actionLink('confirmation', { tokenHash: 'abc', type: 'signup', redirectTo: 'https://app.example.com/welcome' }))
      .toBe('https://auth.example.com/auth/v1/verify?token=abc&type=signup&redirect_to=https://app.example.com/welcome');
    expect(mailer.actionLink('magicLink', { tokenHash: 'pkce_abc', type: 'magiclink', redirectTo: 'https://app.example.com/?a=1&b=2' }))
      .toBe('https://auth.example.com/auth/v1/verify?token=pkce_abc&type=magiclink&redirect_to=https%3A%2F%2Fapp.example.com%2F%3Fa%3D1%26b%3D2');
  });

  it('sends over SMTP with AUTH, From "name <admin>", rendered subject and escaped body', async () => {
    const { log } = capturingLogger();
    const mailer = createMailer({
      config: mailerConfig({ host: '127.0.0.1', port: catcher.port, user: 'mailer', pass: 's3cret', senderName: 'Keyzone Team' }),
      log,
      production: true,
    });
    const sent = await mailer.send({ kind: 'reauthentication', to: 'Alice@Example.com', data: { SiteURL: 'https://app.example.com', Token: '123456' } });
    expect(sent.messageId).toMatch(/@/);
    const mail = await catcher.nextMessageTo('alice@example.com');
    expect(mail.subject).toBe('123456 is your verification code');
    expect(mail.from).toBe('"Keyzone Team" <admin@example.com>');
    expect(mail.html).toContain('Enter the code: 123456');

    await mailer.send({
      kind: 'confirmation',
      to: 'bob@example.com',
      data: { SiteURL: 'https://app.example.com', ConfirmationURL: 'https://x/verify?token=a&type=signup&redirect_to=<script>', Token: '654321' },
    });
    const confirmation = await catcher.nextMessageTo('bob@example.com');
    expect(confirmation.subject).toBe('Confirm your email address');
    expect(confirmation.html).toContain('href="https://x/verify?token=a&amp;type=signup&amp;redirect_to=&lt;script&gt;"');
    expect(confirmation.html).toContain('enter the code: 654321');
    mailer.close();
  });

  it('loads a template from its URL and falls back to the default (with a warning) when it cannot', async () => {
    const { log, lines } = capturingLogger();
    const mailer = createMailer({
      config: mailerConfig(
        { host: '127.0.0.1', port: catcher.port, user: 'mailer', pass: 's3cret' },
        { recovery: `${templateBase}/recovery.html`, magicLink: `${templateBase}/missing.html` },
      ),
      log,
      production: false,
    });
    await mailer.send({
      kind: 'recovery',
      to: 'carol@example.com',
      data: { SiteURL: 's', Email: 'carol@example.com', ConfirmationURL: 'https://l/', Token: '111222', TokenHash: 'h4sh' },
    });
    expect((await catcher.nextMessageTo('carol@example.com')).html).toContain('Custom carol@example.com https://l/ code=111222 hash=h4sh');
    // Cached: a second recovery mail does not fetch the template again.
    const fetchesBefore = templateFetches;
    await mailer.send({ kind: 'recovery', to: 'carol@example.com', data: { SiteURL: 's', Email: 'carol@example.com', Token: '2' } });
    expect((await catcher.nextMessageTo('carol@example.com')).html).toContain('code=2 ');
    expect(templateFetches).toBe(fetchesBefore);

    await mailer.send({ kind: 'magicLink', to: 'dave@example.com', data: { SiteURL: 's', ConfirmationURL: 'https://m/', Token: '333444' } });
    const magic = await catcher.nextMessageTo('dave@example.com');
    expect(magic.subject).toBe('Your sign-in link');
    // The sender name defaults to the admin email.
    expect(magic.rawFrom).toBe('"admin@example.com" <admin@example.com>');
    expect(magic.html).toContain('<a href="https://m/">Log In</a>');
    expect(lines.some((l) => l.level === 40 && String(l.msg).includes('built-in default'))).toBe(true);
    mailer.close();
  });

  it('gives up on a template host that does not answer within the timeout and uses the default', async () => {
    const { log, lines } = capturingLogger();
    let now = 0;
    const store = new TemplateStore({ urls: { ...noTemplates, invite: `${templateBase}/hang.html` }, log, fetchTimeoutMs: 200, now: () => now });
    expect(await store.body('invite')).toBe(DEFAULT_BODIES.invite);
    expect(lines.find((l) => l.level === 40)).toMatchObject({ kind: 'invite' });
    const fetches = templateFetches;
    expect(await store.body('invite')).toBe(DEFAULT_BODIES.invite); // within the retry delay: no new fetch
    expect(templateFetches).toBe(fetches);
    now += 60_001;
    await store.body('invite');
    expect(templateFetches).toBe(fetches + 1);
  });

  it('turns an SMTP rejection into 500 unexpected_failure and logs the reply', async () => {
    const { log, lines } = capturingLogger();
    const mailer = createMailer({ config: mailerConfig({ host: '127.0.0.1', port: catcher.port, user: 'mailer', pass: 's3cret' }), log, production: true });
    catcher.failNext();
    const err = await mailer.send({ kind: 'invite', to: 'erin@example.com', data: { SiteURL: 's', ConfirmationURL: 'u', Token: '1' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 500, code: 'unexpected_failure', message: 'Error sending invite email' });
    expect(lines.find((l) => l.msg === 'sending mail failed')).toMatchObject({ smtpCode: 554 });
    mailer.close();
  });

  it('logs subject, recipient, link and code when SMTP is not configured outside production', async () => {
    const { log, lines } = capturingLogger();
    const mailer = createMailer({ config: mailerConfig({ adminEmail: undefined }), log, production: false });
    await mailer.send({ kind: 'magicLink', to: 'frank@example.com', data: { SiteURL: 's', ConfirmationURL: 'https://link/', Token: '999000' } });
    expect(lines.find((l) => l.mail)).toMatchObject({
      mail: { kind: 'magicLink', to: 'frank@example.com', subject: 'Your sign-in link', actionLink: 'https://link/', emailOtp: '999000' },
    });
  });

  it('renders every kind with its subject and variables (notifications included)', async () => {
    const { log, lines } = capturingLogger();
    const mailer = createMailer({ config: mailerConfig({ host: '127.0.0.1', port: catcher.port, user: 'mailer', pass: 's3cret' }), log, production: true });
    const data = {
      SiteURL: 'https://app.example.com', ConfirmationURL: 'https://l/', Token: '424242', Email: 'kim@example.com',
      NewEmail: 'new@example.com', OldEmail: 'old@example.com', Phone: '15550001', OldPhone: '15550002',
      Provider: 'github', FactorType: 'totp',
    };
    for (const kind of Object.keys(subjects) as Array<keyof typeof subjects>) {
      await mailer.send({ kind, to: 'kim@example.com', data });
      const mail = await catcher.nextMessageTo('kim@example.com');
      expect(mail.subject).toBe(subjects[kind].replace('{{ .Token }}', '424242'));
      expect(mail.html).not.toContain('{{');
    }
    expect(lines.filter((l) => Number(l.level) >= 40)).toEqual([]);
    mailer.close();
  });

  it('refuses to send in production without SMTP', async () => {
    const { log } = capturingLogger();
    const mailer = createMailer({ config: mailerConfig({}), log, production: true });
    await expect(mailer.send({ kind: 'recovery', to: 'g@example.com', data: { SiteURL: 's' } })).rejects.toMatchObject({
      status: 500,
      message: 'Email sending is not configured on this server',
    });
  });
});

describe('checkSmtpHost (issue 25)', () => {
  it('says once, naming the host and the setting, when AUTH_SMTP_HOST does not resolve', async () => {
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line).msg) });
    expect(await checkSmtpHost('localhost', log)).toBe(true);
    expect(await checkSmtpHost('mailpit.invalid', log)).toBe(false);
    expect(await checkSmtpHost(undefined, log)).toBe(true);
    expect(lines).toEqual([expect.stringContaining('AUTH_SMTP_HOST "mailpit.invalid" does not resolve')]);
  });
});
