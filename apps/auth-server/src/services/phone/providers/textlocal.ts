// Textlocal: POST /send/ with form fields apikey, sender, numbers, message; the answer says status
// "success" or "failure" (with errors) under HTTP 200 either way.
import type { SmsConfig } from '@keyzone/config';
import type { SmsSender } from '../sms-sender';
import { form, FORM, postToProvider, SmsSendError } from './provider-http';

export function textlocalSender(config: SmsConfig['textlocal'], timeoutMs: number): SmsSender {
  const base = (config.baseUrl ?? 'https://api.txtlocal.com').replace(/\/+$/, '');
  return {
    async send({ to, body }) {
      const answer = await postToProvider('textlocal', `${base}/send/`, {
        headers: { 'content-type': FORM, accept: 'application/json' },
        body: form({ apikey: config.apiKey ?? '', sender: config.sender ?? '', numbers: to, message: body }),
        timeoutMs,
      });
      const b = answer.body;
      if (answer.status >= 300 || b.status !== 'success') {
        const first = Array.isArray(b.errors) ? (b.errors[0] as Record<string, unknown> | undefined) : undefined;
        throw new SmsSendError('textlocal', String(first?.message ?? `HTTP ${answer.status}`));
      }
      const message = Array.isArray(b.messages) ? (b.messages[0] as Record<string, unknown> | undefined) : undefined;
      return { messageId: message?.id !== undefined ? String(message.id) : undefined };
    },
  };
}
