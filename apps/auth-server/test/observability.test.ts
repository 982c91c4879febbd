// Tracing and metrics: every request is a span named by its parametrized route, with http.method, http.route
// and http.route.params.*, and its database queries are child spans (collected in memory); the Prometheus
// endpoint, scraped over HTTP, serves request counts by route and status, runtime, pool and rate-limit metrics.
import { createServer } from 'node:net';
import { connect, type AuthDatabase } from '@keyzone/db';
import { createTelemetry, InMemorySpanExporter, type Telemetry } from '@keyzone/telemetry';
import type { Kysely } from 'kysely';
import { poolStats } from '@keyzone/db';
import { call } from './helpers/http';
import { startTestServer, type TestServer } from './helpers/server';
import { signUp } from './helpers/users';

const spans = new InMemorySpanExporter();
let server: TestServer;
let telemetry: Telemetry;
let tracedDb: Kysely<AuthDatabase>;
let metricsPort: number;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  metricsPort = await freePort();
  server = await startTestServer({
    env: { MAILER_AUTOCONFIRM: 'true', RATE_LIMIT_VERIFY: '1' },
    configure: (deps) => {
      telemetry = createTelemetry({
        serviceName: 'auth-server', versionAttribute: 'auth.version', version: '9.9.9', resourceAttributes: { 'deployment.environment': 'test' },
        tracing: { enabled: true, exporter: spans },
        metrics: { enabled: true, exporter: 'prometheus', host: '127.0.0.1', port: metricsPort },
      });
      tracedDb = connect<AuthDatabase>(deps.config.db.url, { onQuery: (q) => telemetry.recordQuery(q) });
      telemetry.observePool(() => poolStats(tracedDb));
      return { ...deps, db: tracedDb as typeof deps.db, telemetry };
    },
  });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await telemetry?.shutdown();
  await tracedDb?.destroy();
});

it('a span per request, named by its route, with its queries as child spans', async () => {
  const { user } = (await signUp(server.url)) as unknown as { user: { id: string } };
  const admin = await server.deps.jwt.sign({ role: 'service_role', sub: 'admin' }, { expiresInSeconds: 60, now: server.clock.now() });
  spans.reset();
  expect((await call(server.url, 'GET', `/admin/users/${user.id}`, { token: admin })).status).toBe(200);
  const finished = spans.getFinishedSpans();
  const request = finished.find((s) => s.name === 'GET /admin/users/{user_id}');
  expect(request?.attributes).toMatchObject({
    'http.method': 'GET', 'http.route': '/admin/users/{user_id}', 'http.route.params.user_id': user.id, 'http.status_code': 200,
  });
  const queries = finished.filter((s) => s.name === 'db.query');
  expect(queries.length).toBeGreaterThan(0);
  for (const query of queries) {
    expect(query.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    expect(query.spanContext().traceId).toBe(request?.spanContext().traceId);
  }
  expect(request?.resource.attributes).toMatchObject({ 'service.name': 'auth-server', 'auth.version': '9.9.9', 'deployment.environment': 'test' });

  // Under /auth/v1 the route carries the mount path.
  spans.reset();
  await call(server.url, 'GET', '/auth/v1/settings');
  expect(spans.getFinishedSpans().map((s) => s.name)).toContain('GET /auth/v1/settings');
});

it('serves Prometheus metrics: requests by route and status, runtime, pool, rate-limit refusals', async () => {
  const verify = () => call(server.url, 'POST', '/verify', { body: { type: 'email', email: 'x@example.com', token: '123456' } });
  expect((await verify()).status).toBe(403);
  expect((await verify()).status).toBe(429);
  const scrape = await fetch(`http://127.0.0.1:${metricsPort}/`);
  expect(scrape.status).toBe(200);
  const text = await scrape.text();
  expect(text).toMatch(/http_server_requests_total\{[^}]*http_route="\/admin\/users\/\{user_id\}"[^}]*http_status_code="200"[^}]*\} 1/);
  expect(text).toMatch(/http_server_duration_bucket\{[^}]*http_route="\/admin\/users\/\{user_id\}"[^}]*le="0.1"\}/);
  expect(text).toMatch(/rate_limit_rejections_total\{[^}]*limit="verify"[^}]*\} 1/);
  expect(text).toMatch(/nodejs_memory\{[^}]*type="heap_used"/);
  expect(text).toMatch(/db_client_connections\{[^}]*state="idle"/);
  expect(text).toMatch(/target_info\{[^}]*service_name="auth-server"/);
});
