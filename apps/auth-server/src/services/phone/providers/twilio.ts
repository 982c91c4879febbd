// Twilio Programmable Messaging: POST /2010-04-01/Accounts/{AccountSid}/Messages.json with Basic auth
// (AccountSid:AuthToken), form fields To, Body and MessagingServiceSid (an MG… id) or From (a number).
import type { SmsConfig } from '@keyzone/config';
import type { SmsSender } from '../sms-sender';
import { basicAuth, form, FORM, postToProvider, SmsSendError } from './provider-http';

export function twilioSender(config: SmsConfig['twilio'], timeoutMs: number): SmsSender {
  const base = (config.baseUrl ?? 'https://api.twilio.com').replace(/\/+$/, '');
  const sid = config.accountSid ?? '';
  const sender = config.messageServiceSid ?? '';
  return {
    async send({ to, body, channel }) {
      const recipient = `+${to}`;
      const fields: Record<string, string> = { To: channel === 'whatsapp' ? `whatsapp:${recipient}` : recipient, Body: body };
      if (/^MG[0-9a-f]{32}$/i.test(sender)) fields.MessagingServiceSid = sender;
      else fields.From = channel === 'whatsapp' ? `whatsapp:${sender}` : sender;
      const answer = await postToProvider('twilio', `${base}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`, {
        headers: { authorization: basicAuth(sid, config.authToken ?? ''), 'content-type': FORM, accept: 'application/json' },
        body: form(fields),
        timeoutMs,
      });
      const b = answer.body;
      if (answer.status >= 300) throw new SmsSendError('twilio', String(b.message ?? `HTTP ${answer.status}`));
      if (b.status === 'failed' || b.status === 'undelivered' || b.error_code) {
        throw new SmsSendError('twilio', String(b.error_message ?? `message ${String(b.status)}`));
      }
      return { messageId: typeof b.sid === 'string' ? b.sid : undefined };
    },
  };
}
