// The admin console's new surfaces (issue 43) seen by an attacker, over real HTTP against a real database: a forged
// keyset cursor whose timestamp JavaScript accepts but PostgreSQL does not (30 February, year 0, an offset past
// ±15:59) is a 400 in GoTrue's shape on both cursor listings, never a 500 from the cast in SQL. And Express's
// `trust proxy` (the TRUSTED_PROXIES list): X-Forwarded-Proto counts only from a listed peer, so a client talking to
// the server directly cannot make a foreign https page's Origin pass the hosted session's cross-site write check.
// The console's edit forms (custom OAuth 2.0 providers, SAML metadata_url) reach the same outbound guard as creation:
// an edit cannot point the server at an internal address, and the client secret never comes back.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server';
import { adminCall } from '../admin/admin-helpers';
import { call } from '../helpers/http';
import { startSamlIdp, type SamlIdp } from '../helpers/saml-idp';

jest.setTimeout(120_000);

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const forged = (createdAt: string) => Buffer.from(JSON.stringify({ created_at: createdAt, id: randomUUID() })).toString('base64url');

describe.each(['/admin/audit', '/admin/users'])('a forged cursor on GET %s', (path) => {
  test.each([
    '2026-02-30T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '2026-01-01T00:00:00+16:00',
    '2026-01-01T00:00:00-23:59',
  ])('holding %s is refused as an invalid cursor', async (createdAt) => {
    const res = await adminCall(server, 'GET', `${path}?limit=5&cursor=${forged(createdAt)}`);
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400, body: { code: 400, error_code: 'validation_failed', msg: 'Bad Pagination Parameters: invalid cursor' },
    });
  });

  test('a well-formed cursor still pages (the check refuses only what SQL cannot read)', async () => {
    const res = await adminCall(server, 'GET', `${path}?limit=5&cursor=${forged('2026-01-01T23:59:59.123456+15:59')}`);
    expect(res.status).toBe(200);
  });
});

describe('X-Forwarded-Proto and the hosted session\'s cross-site write check (an old browser: Origin, no Sec-Fetch-Site)', () => {
  const spoofed = (url: string) => ({ origin: `https://${new URL(url).host}`, 'x-forwarded-proto': 'https' });

  test('from a peer that is not a trusted proxy it changes nothing: an https Origin is another origin, refused', async () => {
    const res = await call(server.url, 'POST', '/hosted/session/end', { headers: spoofed(server.url) });
    expect({ status: res.status, msg: res.body.msg }).toEqual({ status: 403, msg: 'Cross-site request refused' });
  });

  test('from a listed proxy it names the scheme the browser used: the same https Origin is the server\'s own', async () => {
    const proxied = await startTestServer({ env: { TRUSTED_PROXIES: '127.0.0.1,::1' } });
    try {
      const res = await call(proxied.url, 'POST', '/hosted/session/end', { headers: spoofed(proxied.url) });
      expect(res.status).toBe(204); // signed out already: nothing to end, but the write was let through
    } finally {
      await proxied.close();
    }
  });
});

describe('editing a provider from the console keeps the outbound guard', () => {
  let guarded: TestServer;
  let idp: SamlIdp;
  beforeAll(async () => {
    idp = await startSamlIdp();
    const samlKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs1' }) as string;
    // Loopback is allowed so the provider can be created at all; every other internal network stays refused.
    guarded = await startTestServer({ env: { OUTBOUND_ALLOWED_NETWORKS: '127.0.0.1/32', SAML_ENABLED: 'true', SAML_PRIVATE_KEY: samlKey } });
  });
  afterAll(async () => {
    await Promise.all([guarded?.close(), idp?.close()]);
  });

  test('an OAuth 2.0 provider\'s token/userinfo URL cannot be moved to a private, link-local or plain-http address; the secret is never shown', async () => {
    const created = await adminCall(guarded, 'POST', '/admin/custom-providers', { body: {
      provider_type: 'oauth2', identifier: 'custom:edited', name: 'Edited', client_id: 'c', client_secret: 'the-secret-value',
      authorization_url: 'https://127.0.0.1/authorize', token_url: 'https://127.0.0.1/token', userinfo_url: 'https://127.0.0.1/userinfo',
    } });
    expect(created.status).toBe(201);
    for (const [field, url, reason] of [
      ['token_url', 'https://10.0.0.5/token', /private network/],
      ['userinfo_url', 'https://169.254.169.254/latest/meta-data/', /link-local/],
      ['token_url', 'http://127.0.0.1/token', /HTTPS/],
    ] as const) {
      const res = await adminCall(guarded, 'PUT', '/admin/custom-providers/custom:edited', { body: { [field]: url, client_secret: 'a-new-secret' } });
      expect({ field, url, status: res.status }).toEqual({ field, url, status: 400 });
      expect(res.body.msg).toMatch(reason);
    }
    const read = await adminCall(guarded, 'GET', '/admin/custom-providers/custom:edited');
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ token_url: 'https://127.0.0.1/token', userinfo_url: 'https://127.0.0.1/userinfo' });
    const renamed = await adminCall(guarded, 'PUT', '/admin/custom-providers/custom:edited', { body: { name: 'Renamed', client_secret: 'a-newer-secret' } });
    expect(renamed.status).toBe(200);
    for (const answer of [created, renamed, read, await adminCall(guarded, 'GET', '/admin/custom-providers')]) {
      expect(answer.text).not.toMatch(/secret-value|new-secret|newer-secret|client_secret/);
    }
  });

  test('a SAML provider\'s metadata_url cannot be changed to plain http or a link-local address', async () => {
    const created = await adminCall(guarded, 'POST', '/admin/sso/providers', { body: { type: 'saml', metadata_xml: idp.metadataXml(), domains: ['edited.example'] } });
    expect(created.status).toBe(201);
    for (const [url, reason] of [
      ['http://127.0.0.1/metadata', /HTTPS/],
      ['https://169.254.169.254/latest/meta-data/', /link-local/],
    ] as const) {
      const res = await adminCall(guarded, 'PUT', `/admin/sso/providers/${created.body.id}`, { body: { metadata_url: url } });
      expect({ url, status: res.status }).toEqual({ url, status: 400 });
      expect(res.body.msg).toMatch(reason);
    }
  });
});
