/** One outgoing SMS through the configured provider (providers/) or an SMS hook; returns the provider's message id. */
export interface SmsSender {
  send(message: { to: string; body: string; channel?: 'sms' | 'whatsapp' }): Promise<{ messageId?: string }>;
}
