// MessageBird: POST /messages with `Authorization: AccessKey <key>`, form fields originator, recipients, body.
import type { SmsConfig } from '@keyzone/config';
import type { SmsSender } from '../sms-sender';
import { form, FORM, postToProvider, SmsSendError } from './provider-http';

export function messagebirdSender(config: SmsConfig['messagebird'], timeoutMs: number): SmsSender {
  const base = (config.baseUrl ?? 'https://rest.messagebird.com').replace(/\/+$/, '');
  return {
    async send({ to, body }) {
      const answer = await postToProvider('messagebird', `${base}/messages`, {
        headers: { authorization: `AccessKey ${config.accessKey ?? ''}`, 'content-type': FORM, accept: 'application/json' },
        body: form({ originator: config.originator ?? '', recipients: to, body, type: 'sms', datacoding: 'auto' }),
        timeoutMs,
      });
      const b = answer.body;
      if (answer.status >= 300) {
        const first = Array.isArray(b.errors) ? (b.errors[0] as Record<string, unknown> | undefined) : undefined;
        throw new SmsSendError('messagebird', String(first?.description ?? `HTTP ${answer.status}`));
      }
      return { messageId: typeof b.id === 'string' ? b.id : undefined };
    },
  };
}
