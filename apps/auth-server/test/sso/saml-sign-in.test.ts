// SAML SSO end to end (issue 30): a real IdP on 127.0.0.1 signing real assertions, auth-js's signInWithSSO
// (PKCE) and the implicit flow, the ACS form post, the accounts it makes, and every attack the ACS must refuse.
import { generateKeyPairSync } from 'node:crypto';
import { AuthClient } from '@supabase/auth-js';
import { runHousekeeping } from '../../src/services/platform/housekeeping';
import { call } from '../helpers/http';
import { startSamlIdp, keyAndCertificate, type IdpUser, type SamlIdp } from '../helpers/saml-idp';
import { secondInstance, startTestServer, type TestServer } from '../helpers/server';
import { claimsOf, signUp, uniqueEmail } from '../helpers/users';

const ACS = 'http://localhost:9999/sso/saml/acs';
const SP_ENTITY = 'http://localhost:9999/sso/saml/metadata';

let server: TestServer;
let idp: SamlIdp;
let providerId: string;
let admin: string;
let spCertPem: string;

/** GoTrue's key format: base64 of the DER PKCS#1 RSA key. */
function gotrueKey(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return privateKey.export({ format: 'der', type: 'pkcs1' }).toString('base64');
}

beforeAll(async () => {
  idp = await startSamlIdp();
  server = await startTestServer({
    env: { MAILER_AUTOCONFIRM: 'true', SAML_ENABLED: 'true', SAML_PRIVATE_KEY: gotrueKey(), SAML_RATE_LIMIT_ASSERTION: '100000', RATE_LIMIT_SSO: '100000', URI_ALLOW_LIST: 'http://localhost:3000/**' },
  });
  admin = await server.deps.jwt.sign({ role: 'service_role', sub: 'test-admin' }, { expiresInSeconds: 3600, now: server.clock.now() });
  const created = await call(server.url, 'POST', '/admin/sso/providers', {
    token: admin,
    body: {
      type: 'saml',
      metadata_xml: idp.metadataXml(),
      domains: ['Corp.Example'],
      attribute_mapping: { keys: { name: { name: 'displayName' }, groups: { name: 'memberOf', array: true }, tier: { name: 'tier', default: 'basic' } } },
    },
  });
  expect(created.status).toBe(201);
  providerId = created.body.id;
  const metadata = await fetch(`${server.url}/sso/saml/metadata`).then((r) => r.text());
  const cert = /<(?:ds:)?X509Certificate>([^<]+)<\/(?:ds:)?X509Certificate>/.exec(metadata)?.[1] ?? '';
  expect(cert).not.toBe('');
  spCertPem = `-----BEGIN CERTIFICATE-----\n${cert.match(/.{1,64}/g)?.join('\n')}\n-----END CERTIFICATE-----\n`;
  idp.trustServiceProvider(spCertPem);
});
afterAll(async () => {
  await Promise.all([server?.close(), idp?.close()]);
});

function employee(overrides: Partial<{ nameId: string; email: string }> = {}): IdpUser & { email: string } {
  const email = overrides.email ?? uniqueEmail('sso');
  return {
    nameId: overrides.nameId ?? `emp-${Math.random().toString(36).slice(2, 10)}`,
    attributes: { mail: [email], displayName: ['Ada Lovelace'], memberOf: ['eng', 'admins'] },
    email,
  };
}

async function start(body: Record<string, unknown> = { provider_id: providerId }): Promise<{ url: string; request: ReturnType<SamlIdp['readRequest']> }> {
  const res = await call(server.url, 'POST', '/sso', { body: { skip_http_redirect: true, redirect_to: 'http://localhost:3000/welcome', ...body } });
  if (res.status !== 200) throw new Error(`POST /sso: ${res.status} ${res.text}`);
  return { url: res.body.url, request: idp.readRequest(res.body.url) };
}

async function postAcs(form: { SAMLResponse: string; RelayState: string }) {
  const res = await fetch(`${server.url}/sso/saml/acs`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
    redirect: 'manual',
  });
  const text = await res.text();
  const json = res.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  return { status: res.status, location: res.headers.get('location') ?? '', body: json };
}

/** The answer the IdP gives to a fresh sign-in, shaped by `options`. */
async function answer(user: IdpUser, options: Parameters<SamlIdp['response']>[2] = {}) {
  const { request } = await start();
  const SAMLResponse = await idp.response({ id: request.id, acsUrl: ACS, audience: SP_ENTITY }, user, options);
  return { SAMLResponse, RelayState: request.relayState, request };
}

const fragmentOf = (location: string) => new URLSearchParams(location.split('#')[1] ?? '');

async function userCount(): Promise<number> {
  const row = await server.deps.db.selectFrom('auth.users').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('sign-in', () => {
  it('auth-js signInWithSSO({ domain }) with PKCE: IdP, ACS, exchangeCodeForSession', async () => {
    const storage = new Map<string, string>();
    const auth = new AuthClient({
      url: `${server.url}/auth/v1`, flowType: 'pkce', persistSession: true, autoRefreshToken: false, detectSessionInUrl: false,
      storage: { getItem: (k) => storage.get(k) ?? null, setItem: (k, v) => void storage.set(k, v), removeItem: (k) => void storage.delete(k) },
    });
    const person = employee();
    idp.signInAs(person);
    const { data, error } = await auth.signInWithSSO({ domain: 'corp.example', options: { redirectTo: 'http://localhost:3000/welcome' } });
    expect(error).toBeNull();
    const request = idp.readRequest(data!.url);
    expect(request).toMatchObject({ acsUrl: ACS, issuer: SP_ENTITY, signatureValid: true });

    const form = await idp.visit(data!.url);
    expect(form.action).toBe(ACS);
    const acs = await postAcs(form);
    expect(acs.status).toBe(302);
    const location = new URL(acs.location);
    expect(`${location.origin}${location.pathname}`).toBe('http://localhost:3000/welcome');
    const code = location.searchParams.get('code');
    expect(code).toBeTruthy();

    const exchanged = await auth.exchangeCodeForSession(code!);
    expect(exchanged.error).toBeNull();
    const session = exchanged.data.session!;
    const claims = claimsOf(session.access_token);
    expect(claims.amr).toEqual([expect.objectContaining({ method: 'sso/saml' })]);
    expect(claims.app_metadata).toEqual({ provider: `sso:${providerId}`, providers: [`sso:${providerId}`] });
    expect(session.user.email).toBe(person.email);
    expect(session.user.email_confirmed_at).toBeTruthy();
    expect(session.user.user_metadata).toMatchObject({
      name: 'Ada Lovelace', groups: ['eng', 'admins'], tier: 'basic', sub: person.nameId, iss: idp.entityId, email_verified: true,
    });
    expect(session.user.identities).toEqual([expect.objectContaining({ provider: `sso:${providerId}`, id: person.nameId })]);
    const row = await server.deps.db.selectFrom('auth.users').select(['is_sso_user']).where('id', '=', session.user.id).executeTakeFirstOrThrow();
    expect(row.is_sso_user).toBe(true);
  });

  it('implicit flow by provider id: 303 to the IdP, the session in the fragment, the same user next time', async () => {
    const person = employee();
    idp.signInAs(person);
    const res = await fetch(`${server.url}/sso`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ provider_id: providerId }), redirect: 'manual',
    });
    expect(res.status).toBe(303);
    const first = await postAcs(await idp.visit(res.headers.get('location')!));
    expect(first.status).toBe(302);
    expect(first.location.startsWith('http://localhost:3000#')).toBe(true);
    const tokens = fragmentOf(first.location);
    const me = await call(server.url, 'GET', '/user', { token: tokens.get('access_token')! });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(person.email);

    // The IdP changes the address: the SSO account follows it.
    const moved = { ...person, attributes: { ...person.attributes, mail: ['moved-' + person.email] } };
    idp.signInAs(moved);
    const { url } = await start();
    const second = await postAcs(await idp.visit(url));
    const again = await call(server.url, 'GET', '/user', { token: fragmentOf(second.location).get('access_token')! });
    expect(again.body.id).toBe(me.body.id);
    expect(again.body.email).toBe('moved-' + person.email);
  });

  it('an SSO user is its own account: a password user with the same address is untouched, and credentials are the IdP\'s', async () => {
    const existing = await signUp(server.url, uniqueEmail('shared'));
    const person = employee({ email: existing.email });
    const { SAMLResponse, RelayState } = await answer(person);
    const acs = await postAcs({ SAMLResponse, RelayState });
    expect(acs.status).toBe(302);
    const token = fragmentOf(acs.location).get('access_token')!;
    const ssoUser = await call(server.url, 'GET', '/user', { token });
    expect(ssoUser.body.id).not.toBe(existing.user.id);
    expect(ssoUser.body.email).toBe(existing.email);
    const password = await call(server.url, 'POST', '/token?grant_type=password', { body: { email: existing.email, password: existing.password } });
    expect(password.body.user.id).toBe(existing.user.id);
    const change = await call(server.url, 'PUT', '/user', { token, body: { password: 'another-password-1' } });
    expect(change.status).toBe(422);
    expect(change.body.error_code ?? change.body.code).toBe('user_sso_managed');
  });

  it('a Response signed as a whole (not its assertion) is accepted; SessionNotOnOrAfter ends the session then', async () => {
    const { SAMLResponse, RelayState } = await answer(employee(), { sessionNotOnOrAfter: 3600, sign: 'response' });
    const acs = await postAcs({ SAMLResponse, RelayState });
    const sessionId = claimsOf(fragmentOf(acs.location).get('access_token')!).session_id as string;
    const row = await server.deps.db.selectFrom('auth.sessions').select('not_after').where('id', '=', sessionId).executeTakeFirstOrThrow();
    expect(Math.abs(new Date(row.not_after!).getTime() - (Date.now() + 3600_000))).toBeLessThan(120_000);
  });
});

describe('two instances over one database', () => {
  it('a sign-in started on one finishes on the other; both serve the same metadata; the replay fails on either', async () => {
    const other = await secondInstance(server);
    try {
      const [a, b] = await Promise.all([server.url, other.url].map((u) => fetch(`${u}/sso/saml/metadata`).then((r) => r.text())));
      expect(b).toBe(a);
      const person = employee();
      idp.signInAs(person);
      const { url } = await start();
      const form = await idp.visit(url);
      const viaB = await fetch(`${other.url}/sso/saml/acs`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString(), redirect: 'manual',
      });
      expect(viaB.status).toBe(302);
      expect((await postAcs(form)).status).toBe(404);
    } finally {
      await other.close();
    }
  });
});

describe('encrypted assertions', () => {
  it('with SAML_ALLOW_ENCRYPTED_ASSERTIONS, an assertion encrypted for the service provider\'s certificate signs in', async () => {
    const key = gotrueKey();
    const encrypting = await startTestServer({ env: { SAML_ENABLED: 'true', SAML_PRIVATE_KEY: key, SAML_ALLOW_ENCRYPTED_ASSERTIONS: 'true' } });
    try {
      const token = await encrypting.deps.jwt.sign({ role: 'service_role', sub: 'a' }, { expiresInSeconds: 600, now: encrypting.clock.now() });
      const provider = await call(encrypting.url, 'POST', '/admin/sso/providers', { token, body: { type: 'saml', metadata_xml: idp.metadataXml() } });
      const metadata = await fetch(`${encrypting.url}/sso/saml/metadata`).then((r) => r.text());
      expect(metadata).toMatch(/KeyDescriptor use="encryption"/);
      const cert = /<(?:ds:)?X509Certificate>([^<]+)</.exec(metadata)![1]!.replace(/\s+/g, '');
      const certPem = `-----BEGIN CERTIFICATE-----\n${cert.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
      const started = await call(encrypting.url, 'POST', '/sso', { body: { provider_id: provider.body.id, skip_http_redirect: true } });
      const request = idp.readRequest(started.body.url);
      const person = employee();
      const SAMLResponse = await idp.response({ id: request.id, acsUrl: ACS, audience: SP_ENTITY }, person, { encryptFor: certPem });
      expect(Buffer.from(SAMLResponse, 'base64').toString()).toContain('EncryptedAssertion');
      const res = await fetch(`${encrypting.url}/sso/saml/acs`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ SAMLResponse, RelayState: request.relayState }).toString(), redirect: 'manual',
      });
      expect(res.status).toBe(302);
      const tokens = fragmentOf(res.headers.get('location')!);
      expect((await call(encrypting.url, 'GET', '/user', { token: tokens.get('access_token')! })).body.email).toBe(person.email);
    } finally {
      await encrypting.close();
    }
  });
});

describe('POST /sso', () => {
  it('needs one of provider_id and domain, a known provider, an enabled one', async () => {
    const neither = await call(server.url, 'POST', '/sso', { body: {} });
    expect([neither.status, neither.body.msg]).toEqual([400, 'A provider_id or domain needs to be provided']);
    const both = await call(server.url, 'POST', '/sso', { body: { provider_id: providerId, domain: 'corp.example' } });
    expect(both.status).toBe(400);
    const unknown = await call(server.url, 'POST', '/sso', { body: { domain: 'nowhere.example' } });
    expect([unknown.status, unknown.body.error_code ?? unknown.body.code]).toEqual([404, 'sso_provider_not_found']);
    const notUuid = await call(server.url, 'POST', '/sso', { body: { provider_id: 'x' } });
    expect(notUuid.status).toBe(404);
  });

  it('a redirect_to outside the allow-list falls back to SITE_URL', async () => {
    const { request } = await start({ provider_id: providerId, redirect_to: 'https://evil.example/steal' });
    const acs = await postAcs({ SAMLResponse: await idp.response({ id: request.id, acsUrl: ACS, audience: SP_ENTITY }, employee()), RelayState: request.relayState });
    expect(acs.location.startsWith('http://localhost:3000#')).toBe(true);
  });
});

describe('the assertion consumer refuses', () => {
  async function refused(form: { SAMLResponse: string; RelayState: string }, status = 400) {
    const before = await userCount();
    const acs = await postAcs(form);
    expect(acs.status).toBe(status);
    expect(acs.location).toBe('');
    expect(await userCount()).toBe(before);
    return acs.body as { msg?: string; message?: string; code?: string; error_code?: string };
  }
  const messageOf = (body: { msg?: string; message?: string }) => body.msg ?? body.message ?? '';

  it('an unsigned response', async () => {
    const body = await refused(await answer(employee(), { sign: 'none' }));
    expect(messageOf(body)).toMatch(/signature/i);
  });

  it('a response signed by a key the metadata does not name', async () => {
    await refused(await answer(employee(), { signer: keyAndCertificate('impostor') }));
  });

  it('XML signature wrapping: a forged assertion beside the signed one', async () => {
    const victim = employee();
    const attacker = employee();
    const { SAMLResponse, RelayState, request } = await answer(attacker, { sign: 'assertion' });
    const signed = Buffer.from(SAMLResponse, 'base64').toString('utf8');
    // The forged assertion (unsigned, the victim's NameID) comes first; the signed original is moved inside it.
    const forged = Buffer.from(await idp.response({ id: request.id, acsUrl: ACS, audience: SP_ENTITY }, victim, { sign: 'none' }), 'base64').toString('utf8');
    const forgedAssertion = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(forged)![0];
    const original = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(signed)![0];
    const wrapped = signed.replace(original, forgedAssertion.replace('</saml:Subject>', `</saml:Subject><saml:Advice>${original}</saml:Advice>`));
    await refused({ SAMLResponse: Buffer.from(wrapped).toString('base64'), RelayState });
    // The second form: the forged assertion first, the signed original after it, both direct children.
    const next = await answer(attacker, { sign: 'assertion' });
    const nextSigned = Buffer.from(next.SAMLResponse, 'base64').toString('utf8');
    const nextOriginal = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(nextSigned)![0];
    const nextForged = /<saml:Assertion[\s\S]*<\/saml:Assertion>/.exec(
      Buffer.from(await idp.response({ id: next.request.id, acsUrl: ACS, audience: SP_ENTITY }, victim, { sign: 'none' }), 'base64').toString('utf8'))![0];
    const twice = nextSigned.replace(nextOriginal, nextForged + nextOriginal);
    const body = await refused({ SAMLResponse: Buffer.from(twice).toString('base64'), RelayState: next.RelayState });
    expect(messageOf(body)).toMatch(/multiple assertions/);
  });

  it('a comment inside the NameID (CVE-2017-11428)', async () => {
    const victim = await signUp(server.url, uniqueEmail('victim'));
    const [local, domain] = victim.email.split('@') as [string, string];
    const body = await refused(await answer(employee(), { rawNameId: `${local}@${domain}<!---->.evil.example` }));
    expect(messageOf(body)).toMatch(/comment/i);
  });

  it('a response with a DTD (entity expansion)', async () => {
    const form = await answer(employee());
    const xml = Buffer.from(form.SAMLResponse, 'base64').toString('utf8');
    const withDtd = `<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>${xml}`;
    const body = await refused({ SAMLResponse: Buffer.from(withDtd).toString('base64'), RelayState: form.RelayState });
    expect(messageOf(body)).toMatch(/DOCTYPE/);
  });

  it('an expired assertion, and one not yet valid', async () => {
    const expired = await refused(await answer(employee(), { notOnOrAfter: -300, notBefore: -600 }));
    expect(messageOf(expired)).toMatch(/expired|NotOnOrAfter|subject confirmation/i);
    await refused(await answer(employee(), { notBefore: 600, notOnOrAfter: 900 }));
  });

  it('another audience, another destination, another recipient, another issuer', async () => {
    await refused(await answer(employee(), { audience: 'https://other-sp.example/metadata' }));
    await refused(await answer(employee(), { destination: 'https://other-sp.example/acs' }));
    await refused(await answer(employee(), { recipient: 'https://other-sp.example/acs' }));
    await refused(await answer(employee(), { issuer: 'https://other-idp.example' }));
  });

  it('a replayed response, and a signed assertion re-wrapped for another sign-in', async () => {
    const person = employee();
    const form = await answer(person, { confirmationInResponseTo: false });
    expect((await postAcs(form)).status).toBe(302);
    const replay = await refused(form, 404);
    expect(replay.error_code).toBe('saml_relay_state_not_found');

    // The same signed assertion inside a new, unsigned Response answering a second sign-in.
    const { request } = await start();
    const xml = Buffer.from(form.SAMLResponse, 'base64').toString('utf8').replace(/InResponseTo="[^"]*"/, `InResponseTo="${request.id}"`);
    const rewrapped = await refused({ SAMLResponse: Buffer.from(xml).toString('base64'), RelayState: request.relayState });
    expect(messageOf(rewrapped)).toMatch(/already been used/);
  });

  it('an answer to another request (InResponseTo)', async () => {
    const first = await start();
    const second = await start();
    const SAMLResponse = await idp.response({ id: first.request.id, acsUrl: ACS, audience: SP_ENTITY }, employee());
    await refused({ SAMLResponse, RelayState: second.request.relayState });
  });

  it('an expired relay state, an unknown one, none', async () => {
    const form = await answer(employee());
    server.clock.advance(121);
    try {
      const expired = await refused(form, 422);
      expect(expired.error_code).toBe('saml_relay_state_expired');
      // Housekeeping deletes it (and every other relay state past its validity).
      expect((await runHousekeeping(server.deps)).samlRelayStates).toBeGreaterThanOrEqual(1);
      expect(await server.deps.db.selectFrom('auth.saml_relay_states').select('id').where('id', '=', form.RelayState).execute()).toEqual([]);
    } finally {
      server.clock.advance(-121);
    }
    const unknown = await refused({ SAMLResponse: form.SAMLResponse, RelayState: '6f1f7c2e-1111-4c3b-9f55-2d1b7e0e0a01' }, 404);
    expect(unknown.error_code).toBe('saml_relay_state_not_found');
    await refused({ SAMLResponse: form.SAMLResponse, RelayState: '' });
    await refused({ SAMLResponse: 'not base64 XML', RelayState: (await start()).request.relayState });
  });

  it('an encrypted assertion unless SAML_ALLOW_ENCRYPTED_ASSERTIONS', async () => {
    const body = await refused(await answer(employee(), { encryptFor: spCertPem }));
    expect(messageOf(body)).toMatch(/decryption key/i);
  });

  it('an assertion without a usable user ID or address', async () => {
    const transient = await refused(await answer({ ...employee(), nameIdFormat: 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient' }));
    expect(transient.error_code).toBe('saml_assertion_no_user_id');
    const noMail = await refused(await answer({ nameId: 'x-1', attributes: {} }));
    expect(noMail.error_code).toBe('saml_assertion_no_email');
  });
});
