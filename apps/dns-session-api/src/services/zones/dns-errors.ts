// Turns DNS rule violations into the service's 400: the message names each field and rule (in every
// environment: these describe the caller's data, not the server), and `errors` lists them for programs.
import type { FieldError, LineError } from '../../dns';
import { badRequest } from '../../errors';

export function invalidInput(what: string, errors: readonly FieldError[]) {
  const list = errors.map((e) => `${e.field} (${e.rule}): ${e.message}`).join('; ');
  return badRequest(`Invalid ${what}: ${list}`, {
    errors: errors.map(({ field, rule, message }) => ({ field, rule, message })),
  });
}

/** `errors`: the first problems (at most 100, the importer's cap); `total`: how many there are in all. */
export function invalidZoneFile(errors: readonly LineError[], total = errors.length) {
  const shown = errors.slice(0, 20).map((e) => `line ${e.line}: ${e.message}`).join('; ');
  const more = total > 20 ? `; and ${total - 20} more` : '';
  return badRequest(`The zone file has ${total} bad line(s): ${shown}${more}`, {
    errors: errors.map((e) => ({ ...e })),
    error_count: total,
    ...(total > errors.length ? { errors_not_listed: total - errors.length } : {}),
  });
}
