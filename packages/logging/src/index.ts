export { createLogger, type CreateLoggerOptions } from './logger';
export { DEFAULT_QUIET_PATHS, matchedRoute, requestLogging, sanitizeRequestId, type RequestLoggingOptions } from './request-logging';
export { toPinoLevel } from './levels';
export { redactSecrets, SECRET_KEYS, REDACTED } from './redact';
export type { Logger } from 'pino';
