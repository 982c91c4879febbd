// The four SMS providers' REST APIs as real HTTP servers on 127.0.0.1. Each checks the method, path,
// authentication and form fields as the provider documents them, keeps every accepted request (so a test
// reads the code out of the text) and answers in the provider's success or failure shape.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type SmsProviderName = 'twilio' | 'messagebird' | 'textlocal' | 'vonage';

export interface SentSms {
  to: string;
  text: string;
}

export interface FakeSmsProvider {
  name: SmsProviderName;
  url: string;
  /** Messages whose request was well formed, newest last (failed sends included: the text was sent). */
  messages: SentSms[];
  /** Requests refused as malformed (wrong path, auth or fields), with the reason. */
  rejected: string[];
  /** The next sends answer the provider's failure with this message. */
  failWith: string | undefined;
  /** The settings that point the auth server at this provider. */
  env: Record<string, string>;
  /** The code in the newest message to `phone` (digits, no +). */
  lastCode(phone: string): string;
  close(): Promise<void>;
}

const CREDENTIALS = {
  twilio: { sid: 'AC0123456789abcdef0123456789abcdef', token: 'twilio-token', from: '+15005550006' },
  messagebird: { key: 'live_messagebird_key', originator: 'Keyzone' },
  textlocal: { key: 'textlocal-api-key', sender: 'Keyzone' },
  vonage: { key: 'vonage-key', secret: 'vonage-secret', from: 'Keyzone' },
};

async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

export async function startSmsProvider(name: SmsProviderName): Promise<FakeSmsProvider> {
  let counter = 0;
  const provider: FakeSmsProvider = {
    name, url: '', messages: [], rejected: [], failWith: undefined, env: {},
    lastCode(phone) {
      const message = [...provider.messages].reverse().find((m) => m.to === phone);
      const code = message && /(\d{6,10})/.exec(message.text)?.[1];
      if (!code) throw new Error(`no code sent to ${phone} via ${name}`);
      return code;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const reject = (res: ServerResponse, status: number, reason: string, body: unknown) => {
    provider.rejected.push(reason);
    json(res, status, body);
  };

  const handlers: Record<SmsProviderName, (req: IncomingMessage, res: ServerResponse, form: URLSearchParams) => void> = {
    twilio(req, res, form) {
      const c = CREDENTIALS.twilio;
      if (req.url !== `/2010-04-01/Accounts/${c.sid}/Messages.json`) return reject(res, 404, `path ${req.url}`, { code: 20404, message: 'not found', status: 404 });
      if (req.headers.authorization !== `Basic ${Buffer.from(`${c.sid}:${c.token}`).toString('base64')}`) {
        return reject(res, 401, 'auth', { code: 20003, message: 'Authenticate', status: 401 });
      }
      const to = form.get('To') ?? '';
      if (!/^\+[1-9]\d{1,14}$/.test(to) || !form.get('Body') || form.get('From') !== c.from) {
        return reject(res, 400, `fields ${form.toString()}`, { code: 21604, message: "A 'To' phone number is required.", status: 400 });
      }
      provider.messages.push({ to: to.slice(1), text: form.get('Body')! });
      if (provider.failWith) return json(res, 400, { code: 21408, message: provider.failWith, status: 400 });
      json(res, 201, { sid: `SM${String(++counter).padStart(32, '0')}`, status: 'queued', error_code: null, error_message: null, to, body: form.get('Body') });
    },
    messagebird(req, res, form) {
      const c = CREDENTIALS.messagebird;
      if (req.url !== '/messages') return reject(res, 404, `path ${req.url}`, { errors: [{ code: 20, description: 'not found' }] });
      if (req.headers.authorization !== `AccessKey ${c.key}`) return reject(res, 401, 'auth', { errors: [{ code: 2, description: 'Request not allowed (incorrect access_key)' }] });
      if (form.get('originator') !== c.originator || !/^[1-9]\d{1,14}$/.test(form.get('recipients') ?? '') || !form.get('body')) {
        return reject(res, 422, `fields ${form.toString()}`, { errors: [{ code: 9, description: 'no (correct) recipients found', parameter: 'recipients' }] });
      }
      provider.messages.push({ to: form.get('recipients')!, text: form.get('body')! });
      if (provider.failWith) return json(res, 422, { errors: [{ code: 25, description: provider.failWith, parameter: null }] });
      json(res, 201, { id: `mb-${++counter}`, body: form.get('body'), recipients: { totalCount: 1, totalSentCount: 1, items: [{ recipient: Number(form.get('recipients')), status: 'sent' }] } });
    },
    textlocal(req, res, form) {
      const c = CREDENTIALS.textlocal;
      if (req.url !== '/send/') return reject(res, 404, `path ${req.url}`, { status: 'failure', errors: [{ code: 404, message: 'not found' }] });
      if (form.get('apikey') !== c.key) return reject(res, 200, 'auth', { status: 'failure', errors: [{ code: 3, message: 'Invalid login details' }] });
      if (form.get('sender') !== c.sender || !/^[1-9]\d{1,14}$/.test(form.get('numbers') ?? '') || !form.get('message')) {
        return reject(res, 200, `fields ${form.toString()}`, { status: 'failure', errors: [{ code: 4, message: 'No recipients specified' }] });
      }
      provider.messages.push({ to: form.get('numbers')!, text: form.get('message')! });
      if (provider.failWith) return json(res, 200, { status: 'failure', errors: [{ code: 7, message: provider.failWith }] });
      json(res, 200, { status: 'success', balance: 1162, batch_id: 123456789, num_messages: 1, messages: [{ id: String(1151346216 + ++counter), recipient: Number(form.get('numbers')) }] });
    },
    vonage(req, res, form) {
      const c = CREDENTIALS.vonage;
      if (req.url !== '/sms/json') return reject(res, 404, `path ${req.url}`, { 'message-count': '0', messages: [] });
      if (form.get('api_key') !== c.key || form.get('api_secret') !== c.secret) {
        return reject(res, 200, 'auth', { 'message-count': '1', messages: [{ status: '4', 'error-text': 'Bad Credentials' }] });
      }
      if (form.get('from') !== c.from || !/^[1-9]\d{1,14}$/.test(form.get('to') ?? '') || !form.get('text')) {
        return reject(res, 200, `fields ${form.toString()}`, { 'message-count': '1', messages: [{ status: '2', 'error-text': 'Missing to param' }] });
      }
      provider.messages.push({ to: form.get('to')!, text: form.get('text')! });
      if (provider.failWith) return json(res, 200, { 'message-count': '1', messages: [{ status: '9', 'error-text': provider.failWith }] });
      json(res, 200, { 'message-count': '1', messages: [{ to: form.get('to'), 'message-id': `0A00000${++counter}`, status: '0', 'remaining-balance': '3.14', 'message-price': '0.03', network: '12345' }] });
    },
  };

  const server: Server = createServer((req, res) => {
    void (async () => {
      if (req.method !== 'POST') return reject(res, 405, `method ${req.method}`, {});
      if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return reject(res, 415, 'content type', {});
      handlers[name](req, res, await formOf(req));
    })().catch((err: unknown) => json(res, 500, { message: String(err) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  provider.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const upper = name.toUpperCase();
  const settings: Record<SmsProviderName, Record<string, string>> = {
    twilio: { SMS_TWILIO_ACCOUNT_SID: CREDENTIALS.twilio.sid, SMS_TWILIO_AUTH_TOKEN: CREDENTIALS.twilio.token, SMS_TWILIO_MESSAGE_SERVICE_SID: CREDENTIALS.twilio.from },
    messagebird: { SMS_MESSAGEBIRD_ACCESS_KEY: CREDENTIALS.messagebird.key, SMS_MESSAGEBIRD_ORIGINATOR: CREDENTIALS.messagebird.originator },
    textlocal: { SMS_TEXTLOCAL_API_KEY: CREDENTIALS.textlocal.key, SMS_TEXTLOCAL_SENDER: CREDENTIALS.textlocal.sender },
    vonage: { SMS_VONAGE_API_KEY: CREDENTIALS.vonage.key, SMS_VONAGE_API_SECRET: CREDENTIALS.vonage.secret, SMS_VONAGE_FROM: CREDENTIALS.vonage.from },
  };
  provider.env = { EXTERNAL_PHONE_ENABLED: 'true', SMS_PROVIDER: name, [`SMS_${upper}_BASE_URL`]: provider.url, ...settings[name] };
  return provider;
}
