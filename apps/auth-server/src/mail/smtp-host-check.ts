// A start-up check of AUTH_SMTP_HOST: a host that does not resolve (e.g. `mailpit` from .env.example when the
// mail catcher is not running) would otherwise only show as a repeated ENOTFOUND warning per queued mail, while
// sign-ups answer 200 and no mail ever leaves. Said once, clearly, at start; the server still starts, since
// in Compose the mail host may come up after it, and queued mail is retried.
import { lookup } from 'node:dns/promises';
import type { Logger } from 'pino';

export async function checkSmtpHost(host: string | undefined, log: Logger, resolve = lookup): Promise<boolean> {
  if (!host) return true;
  try {
    await resolve(host);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    log.error(
      { smtpHost: host, code },
      `AUTH_SMTP_HOST "${host}" does not resolve (${code}): no mail can be sent until it does. Mail is queued and ` +
        'retried; check the name, start the mail server, or unset AUTH_SMTP_HOST to log mail instead (development).',
    );
    return false;
  }
}
