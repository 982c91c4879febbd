// Vonage (Nexmo) SMS API: POST /sms/json with form fields api_key, api_secret, from, to, text; each message of
// the answer has status "0" when accepted, else an error-text.
import type { SmsConfig } from '@keyzone/config';
import type { SmsSender } from '../sms-sender';
import { form, FORM, postToProvider, SmsSendError } from './provider-http';

export function vonageSender(config: SmsConfig['vonage'], timeoutMs: number): SmsSender {
  const base = (config.baseUrl ?? 'https://rest.nexmo.com').replace(/\/+$/, '');
  return {
    async send({ to, body }) {
      const fields: Record<string, string> = { api_key: config.apiKey ?? '', api_secret: config.apiSecret ?? '', from: config.from ?? '', to, text: body };
      // Anything outside GSM-7's basic range needs the unicode type, or it arrives garbled.
      if (/[^\x20-\x7e\n\r]/.test(body)) fields.type = 'unicode';
      const answer = await postToProvider('vonage', `${base}/sms/json`, {
        headers: { 'content-type': FORM, accept: 'application/json' },
        body: form(fields),
        timeoutMs,
      });
      const messages = Array.isArray(answer.body.messages) ? (answer.body.messages as Array<Record<string, unknown>>) : [];
      const failed = messages.find((m) => m.status !== '0');
      if (answer.status >= 300 || messages.length === 0 || failed) {
        throw new SmsSendError('vonage', String(failed?.['error-text'] ?? `HTTP ${answer.status}`));
      }
      return { messageId: typeof messages[0]?.['message-id'] === 'string' ? (messages[0]['message-id'] as string) : undefined };
    },
  };
}
