// A test server whose mail goes over real SMTP to an in-process catcher, plus helpers to read the
// link and code out of a caught message.
import { createMailer } from '../../src/mail/mailer';
import { startTestServer, type TestServer, type TestServerOptions } from './server';
import { startSmtpCatcher, type CaughtMail, type SmtpCatcher } from './smtp-catcher';

export interface EmailTestServer extends TestServer {
  smtp: SmtpCatcher;
  /** A bearer token with role service_role (admin). */
  adminToken(): Promise<string>;
}

export async function startEmailTestServer(options: TestServerOptions = {}): Promise<EmailTestServer> {
  const smtp = await startSmtpCatcher();
  const server = await startTestServer({
    ...options,
    env: {
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtp.port),
      SMTP_ADMIN_EMAIL: 'admin@keyzone.test',
      SMTP_SENDER_NAME: 'Keyzone',
      SMTP_MAX_FREQUENCY: '60',
      ...options.env,
    },
    configure: async (deps) => {
      // Queued mail is retried after 50 ms, not 5 s, so tests of a failing mail server stay short.
      const mailer = createMailer({ config: deps.config, log: deps.log, production: false, db: deps.db, outbox: { retryBaseMs: 50, maxRetryMs: 1000 } });
      const withMailer = { ...deps, mailer };
      return options.configure ? options.configure(withMailer) : withMailer;
    },
  }).catch(async (err: unknown) => {
    await smtp.close();
    throw err;
  });
  return {
    ...server,
    smtp,
    adminToken: () => server.deps.jwt.sign({ role: 'service_role', sub: 'test-admin' }, { expiresInSeconds: 3600, now: server.clock.now() }),
    async close() {
      await server.close();
      await smtp.close();
    },
  };
}

function decodeEntities(s: string): string {
  return s.replace(/&amp;/g, '&').replace(/&#34;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
}

/** The action link (first href) of a caught message. */
export function linkOf(mail: CaughtMail): string {
  const match = /href="([^"]+)"/.exec(mail.html);
  if (!match?.[1]) throw new Error(`no link in mail "${mail.subject}"`);
  return decodeEntities(match[1]);
}

/** The numeric code of a caught message. */
export function codeOf(mail: CaughtMail): string {
  const match = /code: (\d{6,10})/.exec(mail.html);
  if (!match?.[1]) throw new Error(`no code in mail "${mail.subject}"`);
  return match[1];
}

/** Follows a link without following its redirect; returns the Location header. */
export async function follow(link: string, base?: string): Promise<{ status: number; location: string }> {
  const url = base ? base + new URL(link).pathname.replace(/^.*\/verify/, '/verify') + new URL(link).search : link;
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location') ?? '' };
}

/** The parameters of a URL fragment (or query). */
export function fragmentOf(location: string): Record<string, string> {
  const hash = location.indexOf('#');
  return Object.fromEntries(new URLSearchParams(hash >= 0 ? location.slice(hash + 1) : ''));
}
