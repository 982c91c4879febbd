// The configured SMS provider (SMS_PROVIDER) as an SmsSender, or undefined when none is set.
import type { SmsConfig } from '@keyzone/config';
import type { SmsSender } from '../sms-sender';
import { messagebirdSender } from './messagebird';
import { textlocalSender } from './textlocal';
import { twilioSender } from './twilio';
import { vonageSender } from './vonage';

export { SmsSendError } from './provider-http';

const TIMEOUT_MS = 10_000;

export function createSmsSender(config: SmsConfig, options: { timeoutMs?: number } = {}): SmsSender | undefined {
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  switch (config.provider) {
    case 'twilio': return twilioSender(config.twilio, timeoutMs);
    case 'messagebird': return messagebirdSender(config.messagebird, timeoutMs);
    case 'textlocal': return textlocalSender(config.textlocal, timeoutMs);
    case 'vonage': return vonageSender(config.vonage, timeoutMs);
    default: return undefined;
  }
}
