// CORS for browsers using auth-js / supabase-js directly (reference §1.1): the origin is
// reflected with credentials, `apikey` is allowed because there is no gateway in front.
import type { RequestHandler } from 'express';

const ALLOWED_METHODS = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
const ALLOWED_HEADERS = [
  'Accept',
  'Authorization',
  'Content-Type',
  'apikey',
  'X-Client-IP',
  'X-Client-Info',
  'X-JWT-AUD',
  'x-use-cookie',
  'X-Supabase-Api-Version',
].join(', ');
const EXPOSED_HEADERS = 'X-Total-Count, Link, X-Supabase-Api-Version';

export function cors(): RequestHandler {
  return (req, res, next) => {
    const origin = req.get('origin');
    if (origin) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Allow-Credentials', 'true');
      res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
      res.append('Vary', 'Origin');
    }
    if (req.method === 'OPTIONS' && req.get('access-control-request-method')) {
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', '300');
      res.status(204).end();
      return;
    }
    next();
  };
}
