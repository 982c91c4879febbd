// The auth server answers in GoTrue's error shape, which names no field; but its validation messages start with the
// field they concern ("issuer is required for OIDC providers", "token_url: only https URLs…", "domains: \"x\" is not a
// domain name", as zod reports a path). So a form shows such a message at that field, and in the summary as well.
import { fieldError } from '@keyzone/ui/browser';

/** The error's message when it is about `field` (or starts with one of `also`), else undefined. */
export function errorAt(error: Error | undefined, field: string, also: readonly string[] = []): string | undefined {
  const named = fieldError(error, field);
  if (named || !error) return named;
  const message = error.message;
  const about = (prefix: string) => message.startsWith(prefix) && (prefix !== field || /^[\s:.]/.test(message.slice(field.length)));
  return about(field) || also.some(about) ? message : undefined;
}
