// ban_duration of the admin user endpoints: a Go time.ParseDuration string ("24h", "1h30m",
// "500ms", "-1h") or "none" (unban). @keyzone/config's parseDuration reads the same units but also
// accepts bare numbers ("90" = 90 s, right for env settings); Go rejects those ("missing unit in
// duration"), except "0", so they are refused here.
import { parseDuration } from '@keyzone/config';

const BARE_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)$/;

/**
 * Milliseconds of the ban (0 for "none" or a zero duration; negative durations are allowed, as in
 * Go, and end a ban), or undefined when the text is not a Go duration.
 */
export function parseBanDuration(value: string): number | undefined {
  if (value === 'none') return 0;
  if (value !== value.trim()) return undefined;
  if (BARE_NUMBER.test(value)) return Number(value) === 0 ? 0 : undefined;
  const seconds = parseDuration(value);
  return seconds === undefined ? undefined : seconds * 1000;
}

/** banned_until for a ban of `ms` from `now`; a zero or negative ban clears it. */
export function bannedUntil(now: Date, ms: number): Date | null {
  return ms > 0 ? new Date(now.getTime() + ms) : null;
}
