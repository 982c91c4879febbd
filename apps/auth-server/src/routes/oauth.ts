// External sign-in routes (reference §7): GET /authorize, GET and POST /callback (apple posts a form), and
// manual linking, GET /user/identities/authorize and DELETE /user/identities/<id>.
import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { userOf } from '../http/auth';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import type { ProviderClient } from '../services/external/provider-client';
import { unlinkIdentity } from '../services/external/identities';
import { completeAuthorization, flowCookieName, startAuthorization } from '../services/external/oauth-flow';
import { FLOW_STATE_TTL_SECONDS, parsePkceParams } from '../services/external/pkce';
import { requestRedirect } from './email-common';

const AuthorizeQuery = z.object({
  provider: z.string().optional(),
  scopes: z.string().optional(),
  code_challenge: z.string().optional(),
  code_challenge_method: z.string().optional(),
  skip_http_redirect: z.string().optional(),
});

/** Every single-valued query parameter (a repeated one keeps its first value). */
function queryStrings(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.query)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') out[name] = first;
  }
  return out;
}

/**
 * Starts a flow. When the browser itself asks (no skip_http_redirect), it gets the flow's cookie: HttpOnly, for the
 * flow's 5 minutes, SameSite=None over https (apple answers with a cross-site form POST), Lax over plain http.
 */
async function authorizationUrl(deps: Deps, providers: ProviderClient, req: Request, res: Response, linkingTargetId?: string): Promise<string> {
  const query = validate(AuthorizeQuery, queryStrings(req));
  if (!query.provider) throw new ApiError(400, ErrorCode.validation_failed, 'Unsupported provider: missing provider');
  const started = await startAuthorization(deps, providers, {
    provider: query.provider,
    scopes: query.scopes,
    redirectTo: requestRedirect(deps, req),
    pkce: parsePkceParams(query.code_challenge, query.code_challenge_method),
    query: queryStrings(req),
    linkingTargetId,
    browserBound: query.skip_http_redirect !== 'true',
  });
  if (started.binding) {
    const secure = deps.config.api.externalUrl.startsWith('https:');
    res.cookie(flowCookieName(started.state), started.binding, {
      httpOnly: true, maxAge: FLOW_STATE_TTL_SECONDS * 1000, path: '/', secure, sameSite: secure ? 'none' : 'lax',
    });
  }
  return started.url;
}

/** The flow cookies of a request (Express parses no cookies by itself). */
function flowCookies(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const at = part.indexOf('=');
    const name = part.slice(0, at).trim();
    if (at <= 0 || !name.startsWith('kz-oauth-')) continue;
    try {
      out[name] = decodeURIComponent(part.slice(at + 1).trim());
    } catch {
      // A malformed %-escape is no binding value: the flow then fails as without the cookie, never a 500.
    }
  }
  return out;
}

export function authorize(deps: Deps, providers: ProviderClient): RequestHandler {
  return async (req, res) => {
    res.redirect(302, await authorizationUrl(deps, providers, req, res));
  };
}

export function callback(deps: Deps, providers: ProviderClient): RequestHandler {
  return async (req, res) => {
    const form = req.body !== null && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
    const params = queryStrings(req);
    for (const [name, value] of Object.entries(form)) if (typeof value === 'string') params[name] = value;
    const cookies = flowCookies(req);
    for (const name of Object.keys(cookies)) if (name === flowCookieName(params.state ?? '')) res.clearCookie(name, { path: '/' });
    res.redirect(302, await completeAuthorization(deps, providers, params, clientInfo(deps, req), cookies));
  };
}

/** auth-js linkIdentity asks with skip_http_redirect=true and opens the returned URL itself. */
export function linkIdentity(deps: Deps, providers: ProviderClient): RequestHandler {
  return async (req, res) => {
    if (!deps.config.security.manualLinkingEnabled) throw new ApiError(404, ErrorCode.manual_linking_disabled, 'Manual linking is disabled');
    const url = await authorizationUrl(deps, providers, req, res, userOf(req).user.id);
    if (req.query.skip_http_redirect === 'true') res.json({ url });
    else res.redirect(302, url);
  };
}

export function unlink(deps: Deps): RequestHandler {
  return async (req, res) => {
    await unlinkIdentity(deps, { user: userOf(req).user, identityId: String(req.params.identity_id ?? ''), client: clientInfo(deps, req) });
    res.json({});
  };
}
