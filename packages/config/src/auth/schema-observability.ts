// Tracing and metrics (spec Part 1, "Observability"). OTEL_* are also read unprefixed, as standard.
import type { MetricsConfig, TracingConfig } from './schema';
import type { EnvReader } from './env-reader';

/** OTEL_RESOURCE_ATTRIBUTES: "key=value,key2=value2" (W3C baggage style, values percent-decoded). */
export function parseAttributes(raw: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  for (const item of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = item.indexOf('=');
    if (eq <= 0) return undefined;
    try {
      out[item.slice(0, eq).trim()] = decodeURIComponent(item.slice(eq + 1).trim());
    } catch {
      return undefined;
    }
  }
  return out;
}

export function readTracing(r: EnvReader): TracingConfig {
  return {
    enabled: r.bool('TRACING_ENABLED') ?? false,
    exporter: r.oneOf('TRACING_EXPORTER', ['opentelemetry'] as const) ?? 'opentelemetry',
    resourceAttributes: r.read('OTEL_RESOURCE_ATTRIBUTES', 'comma-separated key=value pairs', parseAttributes) ?? {},
    debug: r.bool('DEBUG') ?? false,
  };
}

export function readMetrics(r: EnvReader): MetricsConfig {
  return {
    enabled: r.bool('METRICS_ENABLED') ?? false,
    exporter: r.oneOf('METRICS_EXPORTER', ['opentelemetry', 'prometheus'] as const) ?? 'opentelemetry',
    prometheusHost: r.string('OTEL_EXPORTER_PROMETHEUS_HOST')?.trim() ?? '0.0.0.0',
    prometheusPort: r.int('OTEL_EXPORTER_PROMETHEUS_PORT', { min: 0, max: 65535 }) ?? 9100,
  };
}
