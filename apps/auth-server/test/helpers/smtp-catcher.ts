// An in-process SMTP server for tests: real SMTP on 127.0.0.1, messages parsed with mailparser.
// Tests wait for the next message to an address (a promise, never a sleep).
import { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser } from 'mailparser';

export interface CaughtMail {
  from: string;
  /** The From header exactly as written by the sender. */
  rawFrom: string;
  to: string[];
  subject: string;
  html: string;
  text: string;
  /** Envelope recipients as sent in RCPT TO. */
  envelopeTo: string[];
}

interface Waiter {
  address: string;
  resolve(mail: CaughtMail): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export interface SmtpCatcher {
  host: string;
  port: number;
  /** Every message received so far, oldest first. */
  readonly messages: CaughtMail[];
  /** SMTP connections accepted so far (a probe connects without sending). */
  connections(): number;
  /** Resolves with the oldest not-yet-taken message to `address` (waits for it if needed). */
  nextMessageTo(address: string, timeoutMs?: number): Promise<CaughtMail>;
  /** Messages to `address` received but not yet taken by nextMessageTo. */
  pendingFor(address: string): CaughtMail[];
  /** The next `count` DATA commands are refused with a 554 reply. */
  failNext(count?: number): void;
  close(): Promise<void>;
}

export async function startSmtpCatcher(options: { user?: string; pass?: string } = {}): Promise<SmtpCatcher> {
  const messages: CaughtMail[] = [];
  const untaken: Array<{ address: string; mail: CaughtMail }> = [];
  const waiters: Waiter[] = [];
  let failures = 0;
  let connections = 0;

  const deliver = (mail: CaughtMail) => {
    messages.push(mail);
    for (const address of mail.envelopeTo) {
      const index = waiters.findIndex((w) => w.address === address);
      if (index >= 0) {
        const [waiter] = waiters.splice(index, 1);
        clearTimeout(waiter!.timer);
        waiter!.resolve(mail);
      } else {
        untaken.push({ address, mail });
      }
    }
  };

  const server = new SMTPServer({
    secure: false,
    disabledCommands: options.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !options.user,
    allowInsecureAuth: true,
    logger: false,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onAuth(auth, _session, callback) {
      if (auth.username === options.user && auth.password === options.pass) return callback(null, { user: auth.username });
      return callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      if (failures > 0) {
        failures -= 1;
        stream.resume();
        stream.on('end', () => {
          const err = new Error('Message rejected by test') as Error & { responseCode: number };
          err.responseCode = 554;
          callback(err);
        });
        return;
      }
      simpleParser(stream)
        .then((parsed) => {
          const toField = Array.isArray(parsed.to) ? parsed.to : parsed.to ? [parsed.to] : [];
          deliver({
            from: parsed.from?.text ?? '',
            rawFrom: (parsed.headerLines.find((h) => h.key === 'from')?.line ?? '').replace(/^From:\s*/i, ''),
            to: toField.flatMap((a) => a.value.map((v) => v.address ?? '')),
            subject: parsed.subject ?? '',
            html: typeof parsed.html === 'string' ? parsed.html : '',
            text: parsed.text ?? '',
            envelopeTo: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          });
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;

  return {
    host: '127.0.0.1',
    port,
    messages,
    connections: () => connections,
    nextMessageTo(address, timeoutMs = 10_000) {
      const wanted = address.toLowerCase();
      const index = untaken.findIndex((u) => u.address === wanted);
      if (index >= 0) return Promise.resolve(untaken.splice(index, 1)[0]!.mail);
      return new Promise<CaughtMail>((resolve, reject) => {
        const waiter: Waiter = {
          address: wanted,
          resolve,
          reject,
          timer: setTimeout(() => {
            waiters.splice(waiters.indexOf(waiter), 1);
            reject(new Error(`no mail to ${address} within ${timeoutMs} ms`));
          }, timeoutMs),
        };
        waiters.push(waiter);
      });
    },
    pendingFor(address) {
      const wanted = address.toLowerCase();
      return untaken.filter((u) => u.address === wanted).map((u) => u.mail);
    },
    failNext(count = 1) {
      failures += count;
    },
    close() {
      for (const w of waiters.splice(0)) {
        clearTimeout(w.timer);
        w.reject(new Error('smtp catcher closed'));
      }
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
