// OpenTelemetry for the Keyzone services, one instance per app (no global providers): a span per HTTP
// request named by its parametrized route, database queries as its child spans, and metrics (HTTP requests
// and their duration by route and status, Node runtime, the database pool, and counters the app adds: mail,
// SMS, rate-limit refusals) exported over OTLP or served for Prometheus.
import { AsyncLocalStorage } from 'node:async_hooks';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import {
  diag, DiagConsoleLogger, DiagLogLevel, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace,
  type Attributes, type Counter, type Meter, type Span, type Tracer,
} from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type MetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Request, RequestHandler } from 'express';

export interface TelemetryOptions {
  /** service.name, and the prefix of the version attribute (`<service>.version`, e.g. auth.version). */
  serviceName: string;
  versionAttribute: string;
  version: string;
  /** OTEL_RESOURCE_ATTRIBUTES, merged over the defaults. */
  resourceAttributes?: Record<string, string>;
  /** DEBUG: the SDK's own diagnostics on the console. */
  debug?: boolean;
  /** TRACING_ENABLED; spans go over OTLP (OTEL_EXPORTER_OTLP_* settings) unless `exporter` is given (tests). */
  tracing?: { enabled: boolean; exporter?: SpanExporter };
  /** METRICS_ENABLED and METRICS_EXPORTER; `reader` replaces the exporter (tests). */
  metrics?: { enabled: boolean; exporter: 'prometheus' | 'opentelemetry'; host?: string; port?: number; reader?: MetricReader };
}

export type AppCounter = 'emails_sent' | 'sms_sent' | 'rate_limit_rejections';

export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

export interface Telemetry {
  /** Mount first (after request logging): one span per request, and the request metrics. */
  httpMiddleware(routeOf: (req: Request) => string | undefined): RequestHandler;
  /** A finished database query, as a child span of the request that ran it. */
  recordQuery(query: { sql: string; durationMs: number; failed?: boolean }): void;
  count(counter: AppCounter, attributes?: Attributes): void;
  /** Reports the database pool's connections as gauges. */
  observePool(stats: () => PoolStats | undefined): void;
  shutdown(): Promise<void>;
}

/** ":user_id" → "{user_id}", as OpenTelemetry names routes (http.route). */
export function otelRoute(route: string): string {
  return route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export function createTelemetry(options: TelemetryOptions): Telemetry {
  if (options.debug) diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.DEBUG);
  const resource = resourceFromAttributes({
    'service.name': options.serviceName,
    [options.versionAttribute]: options.version,
    ...options.resourceAttributes,
  });

  let tracer: Tracer | undefined;
  let tracerProvider: BasicTracerProvider | undefined;
  if (options.tracing?.enabled) {
    const exporter = options.tracing.exporter;
    tracerProvider = new BasicTracerProvider({
      resource,
      spanProcessors: [exporter ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(new OTLPTraceExporter())],
    });
    tracer = tracerProvider.getTracer('keyzone', options.version);
  }

  let meterProvider: MeterProvider | undefined;
  let meter: Meter | undefined;
  const metricsOptions = options.metrics;
  if (metricsOptions?.enabled) {
    const reader: MetricReader = metricsOptions.reader
      ?? (metricsOptions.exporter === 'prometheus'
        ? new PrometheusExporter({ host: metricsOptions.host ?? '0.0.0.0', port: metricsOptions.port ?? 9100, endpoint: '/' })
        : new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() }));
    meterProvider = new MeterProvider({ resource, readers: [reader] });
    meter = meterProvider.getMeter('keyzone', options.version);
    observeRuntime(meter);
  }
  const requests = meter?.createCounter('http.server.requests', { description: 'HTTP requests answered' });
  const duration = meter?.createHistogram('http.server.duration', {
    description: 'Time to answer an HTTP request',
    unit: 's',
    advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] },
  });
  const counters = new Map<AppCounter, Counter>();
  for (const name of ['emails_sent', 'sms_sent', 'rate_limit_rejections'] as const) {
    if (meter) counters.set(name, meter.createCounter(name));
  }

  // The request's span for the queries it runs: our own async context, no global context manager.
  const current = new AsyncLocalStorage<Span>();

  return {
    httpMiddleware(routeOf) {
      if (!tracer && !meter) return (_req, _res, next) => next();
      return (req, res, next) => {
        const started = performance.now();
        const method = req.method;
        const span = tracer?.startSpan(`HTTP ${method}`, { kind: SpanKind.SERVER, attributes: { 'http.method': method } });
        res.once('close', () => {
          const matched = routeOf(req);
          const route = matched ? otelRoute(matched) : undefined;
          const status = res.statusCode;
          if (span) {
            span.updateName(route ? `${method} ${route}` : `${method} unmatched`);
            span.setAttribute('http.status_code', status);
            if (route) span.setAttribute('http.route', route);
            for (const [key, value] of Object.entries(req.params ?? {})) span.setAttribute(`http.route.params.${key}`, String(value));
            if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
            span.end();
          }
          const attributes = { 'http.method': method, 'http.route': route ?? 'unmatched', 'http.status_code': status };
          requests?.add(1, attributes);
          duration?.record((performance.now() - started) / 1000, attributes);
        });
        if (span) current.run(span, next);
        else next();
      };
    },
    recordQuery(query) {
      const parent = current.getStore();
      if (!tracer || !parent) return;
      const end = Date.now();
      const span = tracer.startSpan(
        'db.query',
        { kind: SpanKind.CLIENT, startTime: end - query.durationMs, attributes: { 'db.system': 'postgresql', 'db.statement': query.sql.slice(0, 2000) } },
        trace.setSpan(ROOT_CONTEXT, parent),
      );
      if (query.failed) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end(end);
    },
    count(counter, attributes) {
      counters.get(counter)?.add(1, attributes);
    },
    observePool(stats) {
      if (!meter) return;
      const gauge = meter.createObservableGauge('db.client.connections', { description: 'Database pool connections by state' });
      gauge.addCallback((result) => {
        const now = stats();
        if (!now) return;
        result.observe(now.total - now.idle, { state: 'used' });
        result.observe(now.idle, { state: 'idle' });
        result.observe(now.waiting, { state: 'waiting' });
      });
    },
    async shutdown() {
      await Promise.all([tracerProvider?.shutdown(), meterProvider?.shutdown()]);
    },
  };
}

/** Node runtime metrics: memory, event-loop delay and utilisation, uptime. */
function observeRuntime(meter: Meter): void {
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  let lastUtilization = performance.eventLoopUtilization();
  meter.createObservableGauge('nodejs.memory', { unit: 'By' }).addCallback((result) => {
    const memory = process.memoryUsage();
    result.observe(memory.rss, { type: 'rss' });
    result.observe(memory.heapUsed, { type: 'heap_used' });
    result.observe(memory.heapTotal, { type: 'heap_total' });
  });
  meter.createObservableGauge('nodejs.eventloop.delay.p99', { unit: 's' }).addCallback((result) => {
    result.observe(delay.percentile(99) / 1e9);
    delay.reset();
  });
  meter.createObservableGauge('nodejs.eventloop.utilization').addCallback((result) => {
    const now = performance.eventLoopUtilization();
    result.observe(performance.eventLoopUtilization(now, lastUtilization).utilization);
    lastUtilization = now;
  });
  meter.createObservableGauge('process.uptime', { unit: 's' }).addCallback((result) => result.observe(process.uptime()));
}
