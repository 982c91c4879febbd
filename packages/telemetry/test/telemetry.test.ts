// @keyzone/telemetry on its own: routes in OpenTelemetry form, a no-op when off, and spans and metrics sent
// over OTLP/HTTP (the default exporters) to a real receiver on 127.0.0.1 that the standard
// OTEL_EXPORTER_OTLP_ENDPOINT points at.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createTelemetry, otelRoute } from '../src';

it('writes Express route parameters as OpenTelemetry route templates', () => {
  expect(otelRoute('/admin/users/:user_id/factors/:factor_id')).toBe('/admin/users/{user_id}/factors/{factor_id}');
  expect(otelRoute('/health')).toBe('/health');
});

it('is a pass-through middleware when tracing and metrics are off', async () => {
  const telemetry = createTelemetry({ serviceName: 's', versionAttribute: 's.version', version: '1' });
  const app = express();
  app.use(telemetry.httpMiddleware(() => '/x'));
  app.get('/x', (_req, res) => res.json({ ok: true }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/x`);
  expect(await res.json()).toEqual({ ok: true });
  telemetry.recordQuery({ sql: 'select 1', durationMs: 1 });
  telemetry.count('emails_sent');
  await telemetry.shutdown();
  server.close();
});

describe('OTLP over HTTP', () => {
  let receiver: Server;
  const received: Array<{ path: string; type: string; bytes: number }> = [];
  const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;

  beforeAll(async () => {
    receiver = createServer((req: IncomingMessage, res) => {
      let bytes = 0;
      req.on('data', (chunk: Buffer) => (bytes += chunk.length));
      req.on('end', () => {
        received.push({ path: req.url ?? '', type: req.headers['content-type'] ?? '', bytes });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
    await new Promise((resolve) => receiver.close(resolve));
  });

  it('exports the request span and the metrics at shutdown', async () => {
    const telemetry = createTelemetry({
      serviceName: 'svc', versionAttribute: 'svc.version', version: '1',
      tracing: { enabled: true }, metrics: { enabled: true, exporter: 'opentelemetry' },
    });
    const app = express();
    app.use(telemetry.httpMiddleware(() => '/things/:id'));
    app.get('/things/:id', (_req, res) => res.json({ ok: true }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/things/7`);
    await telemetry.shutdown();
    server.close();
    expect(received.map((r) => r.path).sort()).toEqual(['/v1/metrics', '/v1/traces']);
    expect(received.every((r) => r.bytes > 0)).toBe(true);
  });
});
