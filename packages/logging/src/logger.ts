import { mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import pinoPretty from 'pino-pretty';
import { toPinoLevel } from './levels';
import { REDACTED, SECRET_KEYS, redactSecrets } from './redact';
import { REQUEST_COMPLETED } from './request-logging';

export interface CreateLoggerOptions {
  /** Service name, on every line as "name". */
  name: string;
  /** LOG_LEVEL, GoTrue spelling accepted (panic → fatal, warning → warn); default "info". */
  level?: string;
  /** LOG_FILE: append JSON lines to this file (parent folders created) instead of stdout. */
  file?: string;
  /** Human-readable output for development. Ignored when `file` is set: files get JSON. */
  pretty?: boolean;
  /** Where lines go instead of stdout/file (tests capture output this way). */
  destination?: DestinationStream;
}

/**
 * The one logger factory of the services: pino JSON lines ({"level":"info","time":"…","name":…})
 * with every secret-named field (password, token, authorization, cookie, …) redacted at any depth.
 */
export function createLogger(options: CreateLoggerOptions): Logger {
  const pretty = options.pretty === true && !options.file;
  const config: LoggerOptions = {
    name: options.name,
    level: toPinoLevel(options.level),
    // Child-logger bindings bypass formatters.log; pino's redact covers their top-level keys
    // (nested secrets in logged objects are handled by redactSecrets below).
    redact: { paths: SECRET_KEYS.map((key) => (/^[a-z_]+$/.test(key) ? key : `["${key}"]`)), censor: REDACTED },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: {
      // Level names instead of numbers in JSON, as GoTrue writes them; pino-pretty wants the numbers.
      ...(pretty ? {} : { level: (label: string) => ({ level: label }) }),
      // Secrets are removed from every logged object at any depth, and from the root bindings.
      log: (object) => redactSecrets(object),
      bindings: (bindings) => redactSecrets(bindings),
    },
    ...(pretty ? { hooks: { logMethod: compactRequestLine } } : {}),
  };
  return pino(config, destinationFor(options, pretty));
}

function destinationFor(options: CreateLoggerOptions, pretty: boolean): DestinationStream {
  if (options.file) {
    const file = resolve(options.file);
    mkdirSync(dirname(file), { recursive: true });
    // Opened here, synchronously, so the stream is ready at once: pino's exit handler flushes
    // pending lines with flushSync, which throws on a stream still opening.
    return pino.destination({ fd: openSync(file, 'a'), sync: false, ...BATCHED });
  }
  if (pretty) {
    // pino-pretty as a stream in this thread rather than a worker transport: nothing to resolve by
    // name at run time (works from CommonJS, under jest and from dist/), and colours only on a TTY.
    return pinoPretty({
      destination: options.destination ?? 1,
      colorize: options.destination ? false : process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      // One console line per record: the fields follow the message as JSON instead of one line each.
      singleLine: true,
      sync: !options.destination,
    });
  }
  return options.destination ?? pino.destination({ dest: 1, sync: false, ...BATCHED });
}

/**
 * Development console only: a request line reads `GET /health 200 1.2 ms {"reqId":…}` instead of repeating the
 * method, path and status as fields. JSON output (production, files, tests) keeps the fields.
 */
function compactRequestLine(this: Logger, args: Parameters<Logger['info']>, method: (...args: unknown[]) => void): void {
  const [fields, message] = args as unknown[];
  if (message === REQUEST_COMPLETED && typeof fields === 'object' && fields !== null && 'durationMs' in fields) {
    const { reqId, method: verb, path, status, durationMs, aborted } = fields as Record<string, unknown>;
    const text = `${String(verb)} ${String(path)} ${String(status)} ${String(durationMs)} ms${aborted ? ' (aborted)' : ''}`;
    method.apply(this, [{ reqId }, text]);
    return;
  }
  method.apply(this, args as unknown[]);
}

/**
 * Lines are gathered and written in batches of up to ~4 KB rather than one write per line: each asynchronous
 * write is a libuv threadpool job plus a wake-up of the event loop, which profiling showed at 3-4 % of a cheap
 * request's CPU (one line per request). Nothing waits long: pending lines go out at least every 100 ms, and
 * pino flushes synchronously on process exit (also after an uncaught exception).
 */
const BATCHED = { minLength: 4096, periodicFlush: 100 } as const;
