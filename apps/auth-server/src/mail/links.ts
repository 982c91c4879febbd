// Action links: `{API_EXTERNAL_URL}{MAILER_URLPATHS_<KIND>}?token=<hash>&type=<type>&redirect_to=<url>`
// (spec Part 2 "Action link"; reference §1.4.14). Pure, so generate_link can build one without a mailer.
import type { AuthConfig } from '@keyzone/config';

/** Mail kinds whose links point at /verify (magic links use the recovery path, as in GoTrue). */
export type LinkKind = 'invite' | 'confirmation' | 'recovery' | 'magicLink' | 'emailChange';

export interface ActionLinkParams {
  /** The stored token hash (possibly pkce_-prefixed): the link and the typed code resolve to one row. */
  tokenHash: string;
  /** The verification type written into the link (signup, invite, recovery, magiclink, email_change). */
  type: string;
  redirectTo: string;
}

/** GoTrue escapes redirect_to only when it would break the query string (reference §6.4). */
function encodeRedirect(url: string): string {
  return /[&=#]/.test(url) ? encodeURIComponent(url) : url;
}

export function buildActionLink(config: Pick<AuthConfig, 'api' | 'mailer'>, kind: LinkKind, params: ActionLinkParams): string {
  const paths = config.mailer.urlPaths;
  const path = kind === 'magicLink' ? paths.recovery : paths[kind];
  const base = config.api.externalUrl.replace(/\/+$/, '');
  const query =
    `token=${encodeURIComponent(params.tokenHash)}&type=${encodeURIComponent(params.type)}` +
    `&redirect_to=${encodeRedirect(params.redirectTo)}`;
  return `${base}${path.startsWith('/') ? path : `/${path}`}?${query}`;
}
