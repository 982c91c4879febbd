// Pieces shared by the email routes: the redirect_to of a request (allow-listed) and PKCE params.
import type { Request } from 'express';
import type { Deps } from '../deps';
import { redirectPolicyFor, type RedirectPolicy } from '../services/platform/redirects';
import { parsePkceParams, type PkceParams } from '../services/external/pkce';

export function redirectPolicy(deps: Pick<Deps, 'config'>): RedirectPolicy {
  return redirectPolicyFor(deps.config);
}

/** The request's redirect_to: query, then body, then header, then Referer; SITE_URL when none is allowed. */
export function requestRedirect(deps: Pick<Deps, 'config'>, req: Request): string {
  const body = req.body as Record<string, unknown> | undefined;
  return redirectPolicy(deps).resolve({
    query: req.query.redirect_to,
    body: body && typeof body === 'object' ? body.redirect_to : undefined,
    header: req.get('redirect_to'),
    referer: req.get('referer'),
  });
}

export function pkceOf(body: { code_challenge?: string; code_challenge_method?: string }): PkceParams | undefined {
  return parsePkceParams(body.code_challenge, body.code_challenge_method);
}
