// The foundation: health, settings, JWKS, both mounts, CORS, body parsing and both error shapes.
import { call } from './helpers/http';
import { startTestServer, type TestServer } from './helpers/server';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { EXTERNAL_GITHUB_ENABLED: 'true', EXTERNAL_GITHUB_CLIENT_ID: 'id', EXTERNAL_GITHUB_SECRET: 's', EXTERNAL_GITHUB_REDIRECT_URI: 'http://localhost:9999/callback' } });
});
afterAll(async () => {
  await server?.close();
});

describe('public routes', () => {
  it.each(['/health', '/auth/v1/health'])('GET %s names the service and its version', async (path) => {
    const res = await call(server.url, 'GET', path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ version: expect.any(String), name: 'GoTrue', description: expect.any(String) });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('GET /settings lists the 18 providers plus email, phone and anonymous_users', async () => {
    const res = await call<{ external: Record<string, boolean> } & Record<string, unknown>>(server.url, 'GET', '/auth/v1/settings');
    expect(res.status).toBe(200);
    const names = ['apple', 'azure', 'bitbucket', 'discord', 'facebook', 'figma', 'github', 'gitlab', 'google', 'keycloak',
      'linkedin', 'notion', 'snapchat', 'spotify', 'slack', 'twitch', 'twitter', 'workos', 'email', 'phone', 'anonymous_users'];
    expect(Object.keys(res.body.external).sort()).toEqual([...names].sort());
    expect(res.body.external.github).toBe(true);
    expect(res.body.external.google).toBe(false);
    expect(res.body.external.email).toBe(true);
    expect(res.body).toMatchObject({ disable_signup: false, autoconfirm: false, mailer_autoconfirm: false, phone_autoconfirm: false });
  });

  it('GET /.well-known/jwks.json has no keys for HS256', async () => {
    const res = await call(server.url, 'GET', '/.well-known/jwks.json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ keys: [] });
    expect(res.headers.get('cache-control')).toBe('public, max-age=600');
  });

  it('unknown paths are 404 in the error shape', async () => {
    const res = await call(server.url, 'GET', '/nope');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 404 });
  });
});

describe('CORS', () => {
  it('answers a preflight allowing the headers auth-js and supabase-js send', async () => {
    const res = await call(server.url, 'OPTIONS', '/auth/v1/token', {
      headers: {
        origin: 'http://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'apikey,authorization,x-client-info,x-supabase-api-version,content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://app.example');
    const allowed = (res.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const h of ['apikey', 'authorization', 'x-client-info', 'x-supabase-api-version', 'content-type']) expect(allowed).toContain(h);
  });

  it('exposes X-Total-Count, Link and X-Supabase-Api-Version', async () => {
    const res = await call(server.url, 'GET', '/health', { headers: { origin: 'http://app.example' } });
    expect(res.headers.get('access-control-expose-headers')).toBe('X-Total-Count, Link, X-Supabase-Api-Version');
  });
});

describe('bodies and error shapes', () => {
  it('a body that is not JSON is 400 bad_json (legacy shape)', async () => {
    const res = await call(server.url, 'POST', '/signup', { rawBody: 'email=a@b.co', headers: { 'content-type': 'text/plain' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 400, error_code: 'bad_json', msg: expect.any(String) });
    expect(res.headers.get('x-sb-error-code')).toBe('bad_json');
    expect(res.headers.get('x-supabase-api-version')).toBeNull();
  });

  it('a form body is refused outside /token', async () => {
    const res = await call(server.url, 'POST', '/signup', {
      rawBody: 'email=a@b.co&password=secret123',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error_code: 'bad_json' });
  });

  it('the 2024-01-01 shape is {code, message} and echoes the version header', async () => {
    const res = await call(server.url, 'POST', '/signup', { rawBody: '{nope', newShape: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'bad_json', message: expect.any(String) });
    expect(res.headers.get('x-supabase-api-version')).toBe('2024-01-01');
    expect(res.headers.get('x-sb-error-code')).toBe('bad_json');
  });

  it('older or malformed versions get the legacy shape', async () => {
    for (const version of ['2023-12-31', 'garbage']) {
      const res = await call(server.url, 'POST', '/signup', { rawBody: '[]', headers: { 'x-supabase-api-version': version } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 400, error_code: 'bad_json' });
    }
  });

  it('bodies over 1 MiB are 413 request_entity_too_large', async () => {
    const big = JSON.stringify({ email: 'a@b.co', password: 'x', data: { blob: 'x'.repeat(1024 * 1024) } });
    const res = await call(server.url, 'POST', '/signup', { rawBody: big, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: 413, error_code: 'request_entity_too_large' });
  });

  it('a malformed %-escape in a path parameter is a 400, not a 500', async () => {
    const res = await fetch(`${server.url}/admin/users/%E0%A4%A`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 400, error_code: 'validation_failed' });
  });

  it('an unexpected failure is a 500 unexpected_failure with the request id, no details', async () => {
    // Break the database under the server: the next query fails in a way no handler expects.
    const broken = await startTestServer();
    await broken.deps.db.schema.dropTable('auth.users').cascade().execute();
    const res = await call(broken.url, 'POST', '/signup', { body: { email: 'x@example.com', password: 'password-1' }, headers: { 'x-request-id': 'abc' } });
    const requestId = res.headers.get('x-request-id');
    await broken.close();
    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      code: 500,
      error_code: 'unexpected_failure',
      msg: 'Unexpected failure, please check server logs for more information',
      error_id: requestId,
    });
  });
});
