import type { LevelWithSilent } from 'pino';

/**
 * LOG_LEVEL values as GoTrue (logrus) spells them, mapped onto pino's levels. logrus has "panic"
 * above "fatal" and "warning" as a synonym of "warn"; pino has neither, so both are folded in.
 */
const LEVELS: Record<string, LevelWithSilent> = {
  panic: 'fatal',
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  warning: 'warn',
  info: 'info',
  debug: 'debug',
  trace: 'trace',
  silent: 'silent',
};

/** Normalizes a configured log level (case-insensitive); undefined/empty → "info"; unknown → throws. */
export function toPinoLevel(level: string | undefined): LevelWithSilent {
  if (level === undefined || level.trim() === '') return 'info';
  const mapped = LEVELS[level.trim().toLowerCase()];
  if (!mapped) throw new Error(`unknown log level "${level}"; use one of ${Object.keys(LEVELS).join(', ')}`);
  return mapped;
}
