// Keyzone as an OAuth 2.1 / OpenID Connect authorization server (issue 40; GoTrue's oauthserver package).
// Every route answers 404 feature_disabled unless AUTH_OAUTH_SERVER_ENABLED.
//   GET /.well-known/openid-configuration, /.well-known/oauth-authorization-server   the discovery document
//   POST /oauth/clients/register                    RFC 7591 dynamic registration (when allowed; rate-limited)
//   GET /oauth/authorize                            starts the code flow, redirects to the consent page
//   GET /oauth/authorizations/<id>, POST …/consent  the signed-in user's side (the consent page calls them)
//   POST /oauth/token                               authorization_code and refresh_token, with client authentication
//   GET|POST /oauth/userinfo                        the user's claims by the token's scopes
//   POST /oauth/revoke, /oauth/introspect           RFC 7009 / RFC 7662
//   GET, DELETE /user/oauth/grants                  the user's consents
import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { receivedAt } from '../http/arrival';
import { userOf } from '../http/auth';
import { refuseUnstorable } from '../http/body';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import { authorizationDetails, decideConsent, startAuthorization } from '../services/oauth-server/authorize';
import { userInfo } from '../services/oauth-server/claims';
import { authenticateClient } from '../services/oauth-server/client-auth';
import { registerClient } from '../services/oauth-server/clients';
import { listGrants, revokeGrant } from '../services/oauth-server/grants';
import { discoveryDocument } from '../services/oauth-server/metadata';
import { introspectToken, revokeToken } from '../services/oauth-server/token-inspection';
import { authorizationCodeGrant, checkGrantAllowed, oauthRefreshGrant } from '../services/oauth-server/token';
import { redirectPolicyFor } from '../services/platform/redirects';
import { RegistrationBody } from './oauth-server-admin';

const text = z.string().max(4096).optional();
const AuthorizeQuery = z.object({
  client_id: text, redirect_uri: text, response_type: text, scope: text, state: text, resource: text,
  code_challenge: text, code_challenge_method: text, nonce: text,
});
const ConsentBody = z.object({ action: z.enum(['approve', 'deny'], { message: "action must be 'approve' or 'deny'" }) });
const TokenBody = z.looseObject({
  grant_type: text, code: text, redirect_uri: text, code_verifier: text, refresh_token: text, resource: text,
  client_id: z.unknown().optional(), client_secret: z.unknown().optional(),
});
const TokenRequestBody = z.looseObject({ token: text, token_type_hint: text, client_id: z.unknown().optional(), client_secret: z.unknown().optional() });

/** 404 feature_disabled unless the OAuth server is on (GoTrue's requireOAuthServerEnabled). */
export function requireOAuthServer(deps: Pick<Deps, 'config'>): RequestHandler {
  return (_req, _res, next) => {
    if (!deps.config.oauthServer.enabled) throw new ApiError(404, ErrorCode.feature_disabled, 'OAuth server is disabled');
    next();
  };
}

/**
 * The consent API is for the page the browser was sent to: a browser request from any other origin is refused
 * (GoTrue's validateRequestOrigin). Requests without Origin (servers, apps) pass; the bearer token decides.
 */
function checkRequestOrigin(deps: Pick<Deps, 'config'>, req: Request): void {
  const origin = req.get('origin');
  if (!origin) return;
  const own = new URL(deps.config.api.externalUrl).origin;
  if (origin === own || redirectPolicyFor(deps.config).isAllowed(origin)) return;
  throw new ApiError(400, ErrorCode.validation_failed, 'unauthorized request origin');
}

const param = (req: Request, name: string) => String(req.params[name] ?? '');

function approver(req: Request) {
  const { user, session, claims } = userOf(req);
  return { user, session, amr: claims.amr };
}

/** Responses carrying tokens are never cached (RFC 6749 §5.1). */
function noStore(res: Parameters<RequestHandler>[1]): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
}

export function discovery(deps: Deps): RequestHandler {
  return (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=600');
    res.json(discoveryDocument(deps.config, deps.jwt.algorithm));
  };
}

export function dynamicRegister(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.status(201).json(await registerClient(deps, validate(RegistrationBody, req.body), 'dynamic'));
  };
}

export function authorizeRoute(deps: Deps): RequestHandler {
  return async (req, res) => {
    const query = validate(AuthorizeQuery, req.query);
    refuseUnstorable(query, 'The query');
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, await startAuthorization(deps, query));
  };
}

export function getAuthorizationRoute(deps: Deps): RequestHandler {
  return async (req, res) => {
    checkRequestOrigin(deps, req);
    noStore(res);
    res.json(await authorizationDetails(deps, approver(req), param(req, 'authorization_id')));
  };
}

export function consentRoute(deps: Deps): RequestHandler {
  return async (req, res) => {
    checkRequestOrigin(deps, req);
    const body = validate(ConsentBody, req.body);
    noStore(res);
    res.json(await decideConsent(deps, approver(req), param(req, 'authorization_id'), body.action));
  };
}

function presented(req: Request, body: { client_id?: unknown; client_secret?: unknown }) {
  return { authorization: req.get('authorization'), clientId: body.client_id, clientSecret: body.client_secret };
}

export function oauthTokenRoute(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(TokenBody, req.body);
    const client = await authenticateClient(deps, presented(req, body));
    const grantType = body.grant_type ?? '';
    checkGrantAllowed(client, grantType);
    const requestClient = clientInfo(deps, req);
    noStore(res);
    if (grantType === 'authorization_code') {
      res.json(await authorizationCodeGrant(deps, client, body, requestClient));
    } else {
      res.json(await oauthRefreshGrant(deps, client, { refreshToken: body.refresh_token, receivedAt: receivedAt(res) }, requestClient));
    }
  };
}

export function userInfoRoute(): RequestHandler {
  return (req, res) => {
    const { user, session } = userOf(req);
    noStore(res);
    res.json(userInfo(user, session));
  };
}

const hintOf = (hint: string | undefined) => (hint === 'access_token' || hint === 'refresh_token' ? hint : undefined);

export function revokeRoute(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(TokenRequestBody, req.body);
    const client = await authenticateClient(deps, presented(req, body));
    await revokeToken(deps, client, body.token, hintOf(body.token_type_hint));
    res.status(200).end();
  };
}

export function introspectRoute(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(TokenRequestBody, req.body);
    const client = await authenticateClient(deps, presented(req, body));
    noStore(res);
    res.json(await introspectToken(deps, client, body.token, hintOf(body.token_type_hint)));
  };
}

export function listGrantsRoute(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.json(await listGrants(deps, userOf(req).user));
  };
}

export function revokeGrantRoute(deps: Deps): RequestHandler {
  return async (req, res) => {
    const clientId = typeof req.query.client_id === 'string' ? req.query.client_id : undefined;
    await revokeGrant(deps, userOf(req).user, clientId, clientInfo(deps, req));
    res.status(204).end();
  };
}
