// The client's address, resolved once per request: the socket's, or behind the proxies in http.yml
// trusted_proxies (env TRUSTED_PROXIES) the right-most X-Forwarded-For entry that is not one of them.
import type { Request, RequestHandler, Response } from 'express';
import { createClientAddressResolver } from '@keyzone/config';
import type { Deps } from '../deps';

export function clientAddresses(deps: Pick<Deps, 'config' | 'log'>): RequestHandler {
  const resolver = createClientAddressResolver({
    trustedProxies: deps.config.http.trustedProxies,
    onUntrustedForwarding: (peer) =>
      deps.log.warn(
        { peer },
        `requests from ${peer} carry X-Forwarded-For, but ${peer} is not a trusted proxy: every client behind it shares ` +
          'one address and one login limit. Set trusted_proxies in http.yml (or TRUSTED_PROXIES) to the address of the proxy.',
      ),
  });
  return (req, res, next) => {
    // Node joins repeated X-Forwarded-For headers into one string (", "), so it is never an array.
    res.locals.clientAddress = resolver.resolve(req.socket.remoteAddress, req.headers['x-forwarded-for'] as string | undefined);
    next();
  };
}

export function clientAddressOf(res: Response): string | undefined {
  return res.locals.clientAddress as string | undefined;
}

/** For the request log line. */
export const clientAddressOfRequest = (req: Request): string | undefined => (req.res ? clientAddressOf(req.res) : undefined);
