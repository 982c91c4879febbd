// Signing in with an OpenID Connect provider (auth.yml oidc; issue 40): GET /session/oidc → the provider →
// GET /session/oidc/callback → the usual session cookie, then the console. GET /session/oidc/config tells the
// console whether to show the button. A browser (Accept: text/html) that fails is sent to `/?oidc_error=<code>`;
// any other client gets the service's error body.
import type { Request, Response } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { envelope, envelopeSchema } from '../http/envelope';
import { clientAddressOf } from '../http/client-address';
import { clearTransactionCookie, setTransactionCookie, transactionCookieOf } from '../http/oidc-cookie';
import { defineRoute, type RouteFamily } from '../http/route';
import { startCookieSession } from '../http/session-login';
import { ApiError } from '../errors';
import { takeLoginAttempt } from '../services/access/login-limits';
import { OidcError, type OidcSignIn } from '../services/access/oidc-sign-in';
import { sameOriginPath } from '../services/access/oidc-transaction';
import { currentLogin } from '../services/access/sessions';
import { errorSchema } from './examples';

const error = (statusCode: number, errorText: string, message: string, description: string) =>
  ({ description, schema: errorSchema, example: { statusCode, error: errorText, message } });

const redirect = (description: string, example: string) => ({ description, headers: { Location: { description: 'Where the browser goes', example } } });

const text = (max: number) => z.string().max(max).refine((v) => !v.includes('\u0000'), 'may not contain NUL characters');

const startQuery = z.object({
  redirect_to: text(2048).optional().meta({ description: 'A path of the console to return to once signed in (same origin only), default `/`', example: '/#/zones' }),
}).strict();

// What providers send back: RFC 6749 and RFC 9207 (iss), plus what Keycloak, Entra ID and Google add (ignored).
const callbackQuery = z.object({
  code: text(4096).optional(),
  state: text(512).optional(),
  error: text(256).optional(),
  error_description: text(1024).optional(),
  error_uri: text(1024).optional(),
  iss: text(1024).optional().meta({ description: 'RFC 9207: when present, must be the configured issuer' }),
  session_state: text(1024).optional(),
  scope: text(1024).optional(),
  authuser: text(64).optional(),
  prompt: text(64).optional(),
  hd: text(255).optional(),
}).strict();

const configSchema = z.object({ enabled: z.boolean(), label: z.string().optional() });

function wantsHtml(req: Request): boolean {
  return (req.headers.accept ?? '').includes('text/html');
}

/** A failure: the browser back to the console with `?oidc_error=`, an API client the error body. */
function fail(deps: Deps, req: Request, res: Response, err: unknown): void {
  if (!(err instanceof ApiError) || !wantsHtml(req)) throw err;
  const reason = err instanceof OidcError ? err.reason : err.code === 'too_many_requests' ? 'too_many_requests' : err.code === 'unavailable' ? 'unavailable' : 'invalid_request';
  if (err.statusCode >= 500) deps.log.warn({ err }, 'oidc sign-in failed');
  res.redirect(302, `/?oidc_error=${reason}`);
}

function configured(deps: Deps): OidcSignIn {
  if (!deps.oidc) throw new OidcError('not_configured', 'not_found', 'Signing in with an OpenID Connect provider is not configured (auth.yml oidc)');
  return deps.oidc;
}

export const oidcSignInRoutes: RouteFamily = {
  name: 'oidc',
  description: 'Signing in with an OpenID Connect provider (auth.yml oidc): Keyzone\'s auth server, Keycloak, Entra ID…',
  routes: [
    defineRoute({
      method: 'get',
      path: '/session/oidc/config',
      auth: 'none',
      summary: 'Whether signing in with an OpenID Connect provider is configured (for the console\'s button)',
      responses: {
        200: {
          description: '`enabled`, and the button\'s `label` when it is',
          schema: envelopeSchema('oidc', configSchema),
          example: { oidc: { enabled: true, label: 'Sign in with Keyzone' }, meta: { api: { version: '0.1.0' }, msg: 'oidc sign-in' } },
        },
      },
      async handler(_input, { deps }) {
        const data = deps.oidc ? { enabled: true, label: deps.oidc.settings.label } : { enabled: false };
        return { body: envelope('oidc', data, 'oidc sign-in') };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/session/oidc',
      auth: 'none',
      summary: 'Sign in with the OpenID Connect provider: redirects to it',
      description:
        'Redirects to the provider\'s authorization endpoint (authorization code with PKCE S256, state and nonce) and sets a ' +
        'ten-minute HttpOnly cookie that ties the sign-in to this browser. The provider sends the browser back to ' +
        '`/session/oidc/callback`. A browser that cannot start is sent to `/?oidc_error=<code>`.',
      query: startQuery,
      responses: {
        302: redirect('To the provider; Set-Cookie carries the sign-in\'s state', 'https://auth.example.com/oauth/authorize?response_type=code&client_id=…'),
        400: error(400, 'Bad Request', 'redirect_to must be a path of this site', 'redirect_to is not a same-origin path'),
        404: error(404, 'Not Found', 'Signing in with an OpenID Connect provider is not configured (auth.yml oidc)', 'auth.yml oidc is off'),
        503: error(503, 'Service Unavailable', 'The sign-in provider did not answer; try again', 'The provider\'s discovery document is unavailable'),
      },
      async handler({ query }, { deps, req, res }) {
        try {
          const oidc = configured(deps);
          const redirectTo = query.redirect_to === undefined ? '/' : sameOriginPath(query.redirect_to);
          if (!redirectTo) throw new OidcError('invalid_redirect', 'bad_request', 'redirect_to must be a path of this site');
          const { location, transaction } = await oidc.start(redirectTo);
          setTransactionCookie(res, deps.config.session, oidc.codec.seal(transaction));
          res.setHeader('Cache-Control', 'no-store');
          res.redirect(302, location);
        } catch (err) {
          fail(deps, req, res, err);
        }
      },
    }),
    defineRoute({
      method: 'get',
      path: '/session/oidc/callback',
      auth: 'none',
      summary: 'Where the provider sends the browser back: starts the session',
      description:
        'Checks the state against this browser\'s sign-in cookie, exchanges the code, verifies the ID token and signs in ' +
        'the DNS user linked to its subject (or, with link_by_verified_email, the one user with exactly its verified ' +
        'address) with the same session cookie as POST /session, then redirects to the console (`/`, or the ' +
        '`redirect_to` the sign-in started with). A browser that fails is sent to `/?oidc_error=<code>`: ' +
        '`invalid_state`, `access_denied`, `provider_error`, `exchange_failed`, `invalid_id_token`, `not_linked`, ' +
        '`email_not_verified`, `too_many_requests`, `unavailable`, `not_configured`.',
      query: callbackQuery,
      responses: {
        302: redirect('Signed in (Set-Cookie carries the session), or a browser sent back with ?oidc_error=', '/'),
        400: error(400, 'Bad Request', 'This sign-in was not started in this browser, or it expired; start again', 'Bad state, a replay, or the provider\'s error'),
        401: error(401, 'Unauthorized', 'The sign-in provider refused this sign-in; start again', 'The code or the ID token was refused'),
        403: error(403, 'Forbidden', 'No DNS user is linked to you; ask an administrator to link your account', 'No DNS user for this subject'),
        404: error(404, 'Not Found', 'Signing in with an OpenID Connect provider is not configured (auth.yml oidc)', 'auth.yml oidc is off'),
        429: error(429, 'Too Many Requests', 'Too many login attempts; try again later', 'Over the login limit per client (security.yml)'),
        503: error(503, 'Service Unavailable', 'The sign-in provider did not answer; try again', 'The provider is unavailable'),
      },
      async handler({ query }, { deps, req, res }) {
        try {
          const oidc = configured(deps);
          const cookie = transactionCookieOf(req, deps.config.session);
          clearTransactionCookie(res, deps.config.session);
          const transaction = oidc.takeTransaction(cookie, query.state);
          // RFC 9207: a response naming another issuer came from another provider (a mix-up attack).
          if (query.iss !== undefined && query.iss !== oidc.settings.issuer) {
            throw new OidcError('provider_error', 'bad_request', 'The answer came from another sign-in provider');
          }
          if (query.error !== undefined) {
            const denied = query.error === 'access_denied';
            throw new OidcError(denied ? 'access_denied' : 'provider_error', 'bad_request', denied ? 'The sign-in was cancelled' : 'The sign-in provider reported an error');
          }
          if (!query.code) throw new OidcError('invalid_request', 'bad_request', 'The provider sent no code');
          const claims = await oidc.exchange(query.code, transaction);
          const attempt = await takeLoginAttempt(deps, { client: clientAddressOf(res) ?? req.socket.remoteAddress ?? '', account: `oidc:${oidc.linkKeyOf(claims.sub as string)}` });
          const { user } = await currentLogin(deps, await oidc.callerFor(claims));
          await attempt.succeeded();
          const rowId = await startCookieSession(deps, req, { user });
          deps.log.info({ sub: claims.sub, userId: user.id, session: rowId }, 'oidc sign-in');
          res.setHeader('Cache-Control', 'no-store');
          res.redirect(302, transaction.redirectTo);
        } catch (err) {
          fail(deps, req, res, err);
        }
      },
    }),
  ],
};
