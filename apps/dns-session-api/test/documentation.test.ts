import path from 'node:path';
import { pagesBuilt } from '@keyzone/ui/server';
import { CONSOLE_DIR } from '../src/app';
import { allRoutes } from '../src/routes';
import { startTestServer, type TestServer } from './helpers/server';

describe('GET /documentation', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ kind: 'pglite' });
  });
  afterAll(() => t?.close());

  test('serves Swagger UI from the installed package, no CDN, without a session', async () => {
    const page = await t.client().get('/documentation');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<div id="swagger-ui">');
    expect(page.text).not.toMatch(/https?:\/\//);
    for (const asset of ['/documentation/static/swagger-ui-bundle.js', '/documentation/static/swagger-ui.css', '/documentation/init.js']) {
      const res = await t.client().get(asset);
      expect(res.status).toBe(200);
      expect(res.text.length).toBeGreaterThan(10);
    }
    expect((await t.client().get('/documentation/static/nope.js')).status).toBe(404);
  });

  test('without a console build, a browser at / is sent to the documentation; a script still gets the 401 of the status route (issue 25)', async () => {
    const unbuilt = await startTestServer({ kind: 'pglite', configure: (deps) => ({ ...deps, consoleDir: path.join(__dirname, 'no-console-build') }) });
    try {
      const browser = await unbuilt.client().get('/', { headers: { accept: 'text/html' } });
      expect(browser.status).toBe(302);
      expect(browser.headers.get('location')).toBe('/documentation');
    } finally {
      await unbuilt.close();
    }
  });

  test('a script at / gets the 401 of the status route, a browser the console where it is built (issue 42)', async () => {
    const browser = await t.client().get('/', { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    if (pagesBuilt(CONSOLE_DIR)) {
      expect(browser.status).toBe(200);
      expect(browser.headers.get('content-security-policy')).toContain("script-src 'self'");
    } else {
      expect(browser.status).toBe(302);
    }
    expect((await t.client().get('/', { headers: { accept: '*/*' } })).status).toBe(401);
    expect((await t.client().get('/', { headers: { accept: 'application/json' } })).status).toBe(401);
  });

  test('with auth.yml enabled the document offers the bearer scheme on every session route too (issue 27)', async () => {
    const withAuth = await startTestServer({ kind: 'pglite', auth: { enabled: true, url: 'http://127.0.0.1:9', jwksUrl: 'http://127.0.0.1:9/.well-known/jwks.json' } });
    try {
      const doc = (await withAuth.client().get('/documentation/openapi.json')).body;
      expect(doc.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: expect.any(String) });
      expect(doc.paths['/zone'].get.security).toEqual([{ cookieAuth: [] }, { bearerAuth: [] }]);
      expect(doc.paths['/session'].post.security).toEqual([]);
    } finally {
      await withAuth.close();
    }
    expect((await t.client().get('/documentation/openapi.json')).body.components.securitySchemes.bearerAuth).toBeUndefined();
  });

  test('openapi.json is OpenAPI 3.1 with every registered route, its examples and the cookie scheme', async () => {
    const res = await t.client().get('/documentation/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(doc.components.securitySchemes.cookieAuth).toEqual({
      type: 'apiKey',
      in: 'cookie',
      name: 'sid-dnsapi',
      description: expect.any(String),
    });
    const routes = allRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(12);
    const gaps: string[] = []; // every problem at once, each naming its route
    for (const route of routes) {
      const name = `${route.method.toUpperCase()} ${route.path}`;
      const path = route.path.replace(/:(\w+)/g, '{$1}');
      const op = doc.paths[path]?.[route.method];
      if (!op) {
        gaps.push(`${name}: not in openapi.json`);
        continue;
      }
      if (op.summary !== route.summary) gaps.push(`${name}: summary differs`);
      expect(op.security).toEqual(route.auth === 'session' ? [{ cookieAuth: [] }] : []);
      // A redirect is the success of a browser route (GET /session/oidc): its example is the Location header.
      if (!Object.keys(op.responses).some((s) => s.startsWith('2') || s.startsWith('3'))) gaps.push(`${name}: no success response`);
      if (route.body && op.requestBody.content['application/json'].example === undefined) gaps.push(`${name}: no request body example`);
      for (const [status, response] of Object.entries(op.responses) as [string, { content?: Record<string, { example?: unknown }>; headers?: Record<string, { example?: unknown }> }][]) {
        if (status.startsWith('3')) {
          if (response.headers?.Location?.example === undefined) gaps.push(`${name}: no Location example for ${status}`);
        } else if (status !== '204' && Object.values(response.content ?? {})[0]?.example === undefined) gaps.push(`${name}: no example for ${status}`);
      }
    }
    expect(gaps).toEqual([]);
    // Request schemas come from the zod schemas that validate.
    const login = doc.paths['/session'].post;
    // Credentials, or an auth-server access token to exchange (issue 20).
    expect(login.requestBody.content['application/json'].schema.anyOf).toEqual([
      expect.objectContaining({ type: 'object', required: ['username', 'password'], additionalProperties: false }),
      expect.objectContaining({ type: 'object', required: ['access_token'], additionalProperties: false }),
    ]);
    const getUser = doc.paths['/user/{id}'].get;
    expect(getUser.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'id', in: 'path', required: true }),
        expect.objectContaining({ name: 'deleted', in: 'query', required: false }),
      ]),
    );
    expect(getUser.responses['200'].content['application/json'].schema.properties.user.required).toEqual(
      expect.arrayContaining(['id', 'first_name', 'last_name', 'username', 'email']),
    );
  });
});
