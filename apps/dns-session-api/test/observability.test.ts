// Tracing and metrics on the DNS API: a span per request named by its route (e.g. GET /zone/{id}) with its
// database queries as children, and the Prometheus endpoint scraped over HTTP.
import { createServer } from 'node:net';
import { connect, poolStats, type DnsDatabase } from '@keyzone/db';
import { createTelemetry, InMemorySpanExporter, type Telemetry } from '@keyzone/telemetry';
import type { Kysely } from 'kysely';
import { startTestServer, type TestServer } from './helpers/server';

const spans = new InMemorySpanExporter();
let server: TestServer;
let telemetry: Telemetry;
let tracedDb: Kysely<DnsDatabase>;
let metricsPort: number;

beforeAll(async () => {
  metricsPort = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
  server = await startTestServer({
    configure: (deps) => {
      telemetry = createTelemetry({
        serviceName: 'dns-session-api', versionAttribute: 'dns.version', version: '1.2.3',
        tracing: { enabled: true, exporter: spans },
        metrics: { enabled: true, exporter: 'prometheus', host: '127.0.0.1', port: metricsPort },
      });
      tracedDb = connect<DnsDatabase>(deps.config.database.url ?? '', { onQuery: (q) => telemetry.recordQuery(q) });
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

it('names request spans by route, with params and child query spans, and serves Prometheus metrics', async () => {
  const { userId } = await server.seedUser({ group: 'Telemetry', username: 'tess', isAdmin: true });
  const tess = await server.login('tess@Telemetry');
  spans.reset();
  expect((await tess.get(`/user/${userId}`)).status).toBe(200);
  const finished = spans.getFinishedSpans();
  const request = finished.find((s) => s.name === 'GET /user/{id}');
  expect(request?.attributes).toMatchObject({ 'http.method': 'GET', 'http.route': '/user/{id}', 'http.route.params.id': String(userId), 'http.status_code': 200 });
  const queries = finished.filter((s) => s.name === 'db.query' && s.parentSpanContext?.spanId === request?.spanContext().spanId);
  expect(queries.length).toBeGreaterThan(0);
  expect(request?.resource.attributes).toMatchObject({ 'service.name': 'dns-session-api', 'dns.version': '1.2.3' });

  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/`)).text();
  expect(text).toMatch(/http_server_requests_total\{[^}]*http_route="\/user\/\{id\}"[^}]*http_status_code="200"[^}]*\} 1/);
  expect(text).toMatch(/db_client_connections\{[^}]*state="idle"/);
  expect(text).toMatch(/process_uptime\{/);
});
