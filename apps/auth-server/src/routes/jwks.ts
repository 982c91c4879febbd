// GET /.well-known/jwks.json (reference §1.4.17): public keys only; {"keys": []} for HS256 only.
import type { RequestHandler } from 'express';
import type { Deps } from '../deps';

export function jwks(deps: Pick<Deps, 'jwt'>): RequestHandler {
  return (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=600');
    res.json(deps.jwt.jwks());
  };
}
