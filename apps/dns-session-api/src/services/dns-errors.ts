// Turns DNS rule violations into the service's 400: the message names each field and rule (in every
// environment: these describe the caller's data, not the server), and `errors` lists them for programs.
import type { FieldError, LineError } from '../dns';
import { badRequest } from '../errors';

export function invalidInput(what: string, errors: readonly FieldError[]) {
  const list = errors.map((e) => `${e.field} (${e.rule}): ${e.message}`).join('; ');
  return badRequest(`Invalid ${what}: ${list}`, {
    errors: errors.map(({ field, rule, message }) => ({ field, rule, message })),
  });
}

export function invalidZoneFile(errors: readonly LineError[]) {
  const shown = errors.slice(0, 20).map((e) => `line ${e.line}: ${e.message}`).join('; ');
  const more = errors.length > 20 ? `; and ${errors.length - 20} more` : '';
  return badRequest(`The zone file has ${errors.length} bad line(s): ${shown}${more}`, { errors: errors.map((e) => ({ ...e })) });
}
