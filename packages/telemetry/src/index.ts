export { createTelemetry, otelRoute, type AppCounter, type PoolStats, type Telemetry, type TelemetryOptions } from './telemetry';
// For tests of the apps: collect spans in memory (createTelemetry({ tracing: { enabled: true, exporter } })).
export { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
