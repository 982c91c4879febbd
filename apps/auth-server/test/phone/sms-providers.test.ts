// Each SMS provider end to end: POST /otp sends the code through the provider's real REST API (a test server
// that checks path, authentication and fields as documented), POST /verify signs in with it; a provider's
// refusal is 500 sms_send_failed with its message, and the code it carried is then not valid.
import { startSmsProvider, type FakeSmsProvider, type SmsProviderName } from '../helpers/sms-provider';
import { call } from '../helpers/http';
import { startTestServer, type TestServer } from '../helpers/server';

const PROVIDERS: SmsProviderName[] = ['twilio', 'messagebird', 'textlocal', 'vonage'];
const MESSAGE_IDS: Record<SmsProviderName, RegExp> = { twilio: /^SM\d{32}$/, messagebird: /^mb-\d+$/, textlocal: /^\d+$/, vonage: /^0A0+\d+$/ };

describe.each(PROVIDERS)('%s', (name) => {
  let provider: FakeSmsProvider;
  let server: TestServer;
  beforeAll(async () => {
    provider = await startSmsProvider(name);
    server = await startTestServer({ env: { ...provider.env, SMS_TEMPLATE: 'Keyzone code: {{ .Code }}' } });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await provider?.close();
  });

  it('sends the code through the provider and signs in with it', async () => {
    const phone = '15551230001';
    const sent = await call(server.url, 'POST', '/otp', { body: { phone: `+${phone}` } });
    expect(sent.status).toBe(200);
    expect(sent.body.message_id).toMatch(MESSAGE_IDS[name]);
    expect(provider.rejected).toEqual([]);
    expect(provider.messages.at(-1)).toEqual({ to: phone, text: expect.stringMatching(/^Keyzone code: \d{6}$/) });
    const verified = await call(server.url, 'POST', '/verify', { body: { type: 'sms', phone, token: provider.lastCode(phone) } });
    expect(verified.status).toBe(200);
    expect(verified.body.user).toMatchObject({ phone, app_metadata: { provider: 'phone' } });
    expect(verified.body.user.phone_confirmed_at).toBeDefined();
  });

  it("answers the provider's refusal with 500 sms_send_failed, and leaves no valid code", async () => {
    const phone = '15551230002';
    provider.failWith = 'The destination is unreachable';
    const refused = await call(server.url, 'POST', '/otp', { body: { phone } });
    provider.failWith = undefined;
    expect(refused.status).toBe(500);
    expect(refused.body).toMatchObject({ error_code: 'sms_send_failed', msg: `Error sending SMS via ${name}: The destination is unreachable` });
    const code = provider.lastCode(phone);
    const verify = await call(server.url, 'POST', '/verify', { body: { type: 'sms', phone, token: code } });
    expect(verify.status).toBe(403);
    expect(verify.body).toMatchObject({ error_code: 'otp_expired' });
    // Nothing was kept: not the user, not the send time (a new send is not "too soon").
    expect((await call(server.url, 'POST', '/otp', { body: { phone } })).status).toBe(200);
  });
});
