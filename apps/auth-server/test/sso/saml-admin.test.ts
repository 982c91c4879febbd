// The admin SSO API (GoTrue's /admin/sso/providers), the service provider's metadata, and SAML switched off.
import { generateKeyPairSync } from 'node:crypto';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { call } from '../helpers/http';
import { keyAndCertificate, startSamlIdp, type SamlIdp } from '../helpers/saml-idp';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let off: TestServer;
let idp: SamlIdp;
let other: SamlIdp;
let admin: string;
let metadataHost: https.Server;
let metadataUrl: string;
let served = '';
let metadataStatus = 200;
let metadataRequests = 0;

const pemKey = () => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs1' }) as string;

beforeAll(async () => {
  [idp, other] = await Promise.all([startSamlIdp(), startSamlIdp()]);
  // metadata_url must be https: a server with its own certificate, which the app's outgoing agent trusts.
  const tls = keyAndCertificate('localhost');
  metadataHost = https.createServer({ key: tls.keyPem, cert: tls.certPem }, (_req, res) => {
    metadataRequests += 1;
    res.writeHead(metadataStatus, { 'content-type': 'application/samlmetadata+xml' }).end(served);
  });
  await new Promise<void>((resolve) => metadataHost.listen(0, resolve));
  metadataUrl = `https://localhost:${(metadataHost.address() as AddressInfo).port}/metadata`;
  const agent = new https.Agent({ ca: tls.certPem });
  [server, off] = await Promise.all([
    startTestServer({
      // The metadata host is on loopback, which the outbound guard refuses unless allowed.
      env: {
        SAML_ENABLED: 'true', SAML_PRIVATE_KEY: pemKey(), SAML_METADATA_REFRESH_PERIOD: '1h', API_EXTERNAL_URL: 'https://auth.example.com/auth/v1',
        OUTBOUND_ALLOWED_NETWORKS: '127.0.0.1/32',
      },
      configure: (deps) => ({ ...deps, outboundHttpsAgent: agent }),
    }),
    startTestServer(),
  ]);
  admin = await server.deps.jwt.sign({ role: 'service_role', sub: 'test-admin' }, { expiresInSeconds: 86400, now: server.clock.now() });
});
afterAll(async () => {
  metadataHost?.closeAllConnections();
  await Promise.all([server?.close(), off?.close(), idp?.close(), other?.close(), new Promise((r) => metadataHost?.close(r))]);
});

const api = (method: string, path: string, body?: unknown) => call(server.url, method, path, { token: admin, body });

describe('/admin/sso/providers', () => {
  it('create, list, get, update, delete', async () => {
    const created = await api('POST', '/admin/sso/providers', {
      type: 'saml', metadata_xml: idp.metadataXml(), domains: ['Example.ORG', 'example.org', 'sub.example.org.'],
      attribute_mapping: { keys: { email: { name: 'mail' }, roles: { names: ['groups', 'role'], array: true } } },
      name_id_format: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      disabled: false,
      saml: {
        entity_id: idp.entityId, metadata_xml: idp.metadataXml(),
        attribute_mapping: { keys: { email: { name: 'mail' }, roles: { names: ['groups', 'role'], array: true } } },
        name_id_format: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
      },
      domains: [{ domain: 'example.org' }, { domain: 'sub.example.org' }],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const id = created.body.id as string;

    const list = await api('GET', '/admin/sso/providers');
    expect(list.status).toBe(200);
    expect(list.body.items.map((p: { id: string }) => p.id)).toContain(id);
    expect((await api('GET', `/admin/sso/providers/${id}`)).body).toEqual(created.body);

    const updated = await api('PUT', `/admin/sso/providers/${id}`, { domains: ['example.net'], attribute_mapping: { keys: {} }, disabled: true });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ disabled: true, domains: [{ domain: 'example.net' }], saml: { attribute_mapping: { keys: {} } } });
    const disabled = await call(server.url, 'POST', '/sso', { body: { domain: 'example.net' } });
    expect([disabled.status, disabled.body.error_code]).toEqual([422, 'sso_provider_disabled']);

    const deleted = await api('DELETE', `/admin/sso/providers/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.id).toBe(id);
    const gone = await api('GET', `/admin/sso/providers/${id}`);
    expect([gone.status, gone.body.error_code]).toEqual([404, 'sso_provider_not_found']);
    expect((await api('GET', '/admin/sso/providers/not-a-uuid')).status).toBe(404);
  });

  it('one provider per entity ID and per domain; the entity ID never changes', async () => {
    const first = await api('POST', '/admin/sso/providers', { type: 'saml', metadata_xml: other.metadataXml(), domains: ['taken.example'] });
    expect(first.status).toBe(201);
    const again = await api('POST', '/admin/sso/providers', { type: 'saml', metadata_xml: other.metadataXml() });
    expect([again.status, again.body.error_code]).toEqual([422, 'saml_idp_already_exists']);
    const third = await startSamlIdp();
    try {
      const clash = await api('POST', '/admin/sso/providers', { type: 'saml', metadata_xml: third.metadataXml(), domains: ['TAKEN.example'] });
      expect([clash.status, clash.body.error_code]).toEqual([400, 'sso_domain_already_exists']);
      const swap = await api('PUT', `/admin/sso/providers/${first.body.id}`, { metadata_xml: third.metadataXml() });
      expect([swap.status, swap.body.error_code]).toEqual([400, 'saml_entity_id_mismatch']);
    } finally {
      await third.close();
    }
    await api('DELETE', `/admin/sso/providers/${first.body.id}`);
  });

  it('refuses bad bodies with 400s, and non-admins', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ metadata_xml: idp.metadataXml() }, /Only 'saml'/],
      [{ type: 'oidc', metadata_xml: idp.metadataXml() }, /Only 'saml'/],
      [{ type: 'saml' }, /metadata_xml or metadata_url/],
      [{ type: 'saml', metadata_xml: idp.metadataXml(), metadata_url: metadataUrl }, /Only one of/],
      [{ type: 'saml', metadata_url: 'http://insecure.example/metadata' }, /HTTPS/],
      [{ type: 'saml', metadata_xml: '<nope' }, /well-formed/],
      [{ type: 'saml', metadata_xml: '<!DOCTYPE x [<!ENTITY a "b">]><x/>' }, /DOCTYPE/],
      [{ type: 'saml', metadata_xml: '<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"/>' }, /IDPSSODescriptor/],
      [{ type: 'saml', metadata_xml: idp.metadataXml().replace(/<md:KeyDescriptor[\s\S]*?<\/md:KeyDescriptor>/, '') }, /no signing certificate/],
      [{ type: 'saml', metadata_xml: idp.metadataXml(), domains: ['not a domain'] }, /not a domain name/],
      [{ type: 'saml', metadata_xml: idp.metadataXml(), name_id_format: 'urn:x' }, /name_id_format/],
      [{ type: 'saml', metadata_xml: idp.metadataXml(), attribute_mapping: { keys: { email: { nam: 'typo' } } } }, /attribute_mapping/],
    ];
    for (const [body, message] of cases) {
      const res = await api('POST', '/admin/sso/providers', body);
      expect([res.status, res.body.msg]).toEqual([400, expect.stringMatching(message)]);
    }
    const user = await server.deps.jwt.sign({ role: 'authenticated', sub: 'someone' }, { expiresInSeconds: 60, now: server.clock.now() });
    expect((await call(server.url, 'GET', '/admin/sso/providers', { token: user })).status).toBe(403);
  });

  it('metadata_url: fetched over https at creation, re-read once older than SAML_METADATA_REFRESH_PERIOD', async () => {
    const idpFromUrl = await startSamlIdp();
    try {
      served = idpFromUrl.metadataXml();
      const created = await api('POST', '/admin/sso/providers', { type: 'saml', metadata_url: metadataUrl });
      expect(created.status).toBe(201);
      expect(created.body.saml).toMatchObject({ entity_id: idpFromUrl.entityId, metadata_url: metadataUrl, metadata_xml: served });

      // The IdP rotates its signing certificate; after the refresh period a sign-in start reads the new metadata.
      const rotated = keyAndCertificate('idp.rotated');
      const body = (pem: string) => pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
      served = served.replace(body(idpFromUrl.certPem), body(rotated.certPem));
      expect((await call(server.url, 'POST', '/sso', { body: { provider_id: created.body.id, skip_http_redirect: true } })).status).toBe(200);
      expect((await api('GET', `/admin/sso/providers/${created.body.id}`)).body.saml.metadata_xml).not.toBe(served);
      server.clock.advance(3601);
      expect((await call(server.url, 'POST', '/sso', { body: { provider_id: created.body.id, skip_http_redirect: true } })).status).toBe(200);
      expect((await api('GET', `/admin/sso/providers/${created.body.id}`)).body.saml.metadata_xml).toBe(served);

      const unreachable = await api('POST', '/admin/sso/providers', { type: 'saml', metadata_url: 'https://localhost:1/metadata' });
      expect([unreachable.status, unreachable.body.error_code]).toEqual([400, 'saml_metadata_fetch_failed']);
      await api('DELETE', `/admin/sso/providers/${created.body.id}`);
    } finally {
      await idpFromUrl.close();
    }
  });

  it('metadata_url down: one fetch for concurrent sign-in starts, then the stored metadata for a minute before the next try', async () => {
    const idpFromUrl = await startSamlIdp();
    try {
      served = idpFromUrl.metadataXml();
      metadataStatus = 200;
      const created = await api('POST', '/admin/sso/providers', { type: 'saml', metadata_url: metadataUrl });
      expect(created.status).toBe(201);
      const start = () => call(server.url, 'POST', '/sso', { body: { provider_id: created.body.id, skip_http_redirect: true } });

      metadataStatus = 503;
      server.clock.advance(3601);
      metadataRequests = 0;
      const starts = await Promise.all(Array.from({ length: 5 }, start));
      expect(starts.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      expect(metadataRequests).toBe(1);
      expect((await start()).status).toBe(200);
      expect(metadataRequests).toBe(1); // still within the minute after the failure

      metadataStatus = 200;
      server.clock.advance(61);
      expect((await start()).status).toBe(200);
      expect(metadataRequests).toBe(2);
      expect((await start()).status).toBe(200);
      expect(metadataRequests).toBe(2); // fresh again: no fetch until the refresh period has passed
      await api('DELETE', `/admin/sso/providers/${created.body.id}`);
    } finally {
      metadataStatus = 200;
      await idpFromUrl.close();
    }
  });
});

describe('service provider metadata', () => {
  it('GET /sso/saml/metadata: entity ID, ACS, signing certificate; ?download=true as a file; the same bytes every time', async () => {
    const res = await fetch(`${server.url}/sso/saml/metadata`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=600');
    const xml = await res.text();
    expect(xml).toContain('entityID="https://auth.example.com/auth/v1/sso/saml/metadata"');
    expect(xml).toMatch(/AssertionConsumerService[^>]*Location="https:\/\/auth.example.com\/auth\/v1\/sso\/saml\/acs"/);
    expect(xml).toMatch(/AuthnRequestsSigned="true"/);
    expect(xml).toMatch(/<(ds:)?X509Certificate>[A-Za-z0-9+/=\s]{500,}</);
    const download = await fetch(`${server.url}/sso/saml/metadata?download=true`);
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="metadata.xml"');
    expect(await download.text()).toBe(xml);
  });

  it('GET /settings says saml_enabled', async () => {
    expect((await call(server.url, 'GET', '/settings')).body.saml_enabled).toBe(true);
    expect((await call(off.url, 'GET', '/settings')).body.saml_enabled).toBe(false);
  });
});

describe('SAML off', () => {
  it('every SSO route answers 404 saml_provider_disabled', async () => {
    const offAdmin = await off.deps.jwt.sign({ role: 'service_role', sub: 'a' }, { expiresInSeconds: 60, now: off.clock.now() });
    for (const [method, path, token] of [
      ['POST', '/sso', undefined], ['GET', '/sso/saml/metadata', undefined], ['POST', '/sso/saml/acs', undefined],
      ['GET', '/admin/sso/providers', offAdmin], ['POST', '/admin/sso/providers', offAdmin],
    ] as const) {
      const res = await call(off.url, method, path, { token, body: method === 'POST' ? {} : undefined });
      expect([path, res.status, res.body.error_code ?? res.body.code]).toEqual([path, 404, 'saml_provider_disabled']);
    }
  });
});
