// `Authorization: Bearer <auth-server access token>` in place of the session cookie (issue 20): the token is
// verified by @keyzone/tokens requireUser, then mapped to the linked DNS user (services/auth-tokens.ts). A
// request without a bearer token goes on to the cookie session as before.
import type { RequestHandler } from 'express';
import type { AuthTokens } from '../services/access/auth-tokens';
import { clientAddressOf } from './client-address';

export function bearerAuth(tokens: AuthTokens): RequestHandler {
  return (req, res, next) => {
    if (!/^bearer\s/i.test(req.headers.authorization ?? '')) {
      next();
      return;
    }
    tokens.verifier(req, res, (err?: unknown) => {
      if (err) {
        next(err);
        return;
      }
      const auth = req.auth;
      if (!auth) {
        next(new Error('requireUser passed without setting req.auth'));
        return;
      }
      tokens.callerFor(auth.token, auth.claims).then((caller) => {
        res.locals.caller = { ...caller, ip: clientAddressOf(res) };
        next();
      }, next);
    });
  };
}
