// Client IP and user agent for sessions, audit rows and rate limits (reference §1.1). The address is resolved
// once per request by clientAddresses() (the first middleware after the arrival stamp): the socket's, or behind
// the proxies in TRUSTED_PROXIES the right-most X-Forwarded-For entry that is not one of them.
import type { Request, RequestHandler } from 'express';
import { isIP } from 'node:net';
import { createClientAddressResolver } from '@keyzone/config';
import type { Deps } from '../deps';
import type { ClientInfo } from '../services/platform/context';

const resolvedAddresses = new WeakMap<Request, string>();

/** Resolves each request's client address; warns (once per 10 minutes) about forwarded requests from untrusted peers. */
export function clientAddresses(deps: Pick<Deps, 'config' | 'log'>): RequestHandler {
  const resolver = createClientAddressResolver({
    trustedProxies: deps.config.api.trustedProxies,
    onUntrustedForwarding: (peer) =>
      deps.log.warn(
        { peer },
        `requests from ${peer} carry X-Forwarded-For, but ${peer} is not a trusted proxy: every client behind it shares ` +
          'one address and one rate limit. Set AUTH_TRUSTED_PROXIES to the address of the proxy.',
      ),
  });
  return (req, _res, next) => {
    resolvedAddresses.set(req, resolver.resolve(req.socket.remoteAddress, req.get('x-forwarded-for')));
    next();
  };
}

/** The address clientAddresses() resolved for this request. */
export function resolvedAddress(req: Request): string | undefined {
  return resolvedAddresses.get(req);
}

/**
 * The first value of the header named by RATE_LIMIT_HEADER, else of Sb-Forwarded-For when
 * SECURITY_SB_FORWARDED_FOR_ENABLED; undefined with neither. Both trust whatever set the header (GoTrue's way).
 */
export function rateLimitKey(deps: Pick<Deps, 'config'>, req: Request): string | undefined {
  const { config } = deps;
  const header = config.rateLimit.header ? req.get(config.rateLimit.header) : undefined;
  const forwarded = !header && config.security.sbForwardedForEnabled ? req.get('sb-forwarded-for') : undefined;
  const key = (header ?? forwarded)?.split(',')[0]?.trim();
  return key || undefined;
}

export function clientInfo(deps: Pick<Deps, 'config'>, req: Request): ClientInfo {
  let ip = resolvedAddress(req) ?? req.socket.remoteAddress ?? '';
  if (deps.config.security.sbForwardedForEnabled) {
    const forwarded = req.get('sb-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded && isIP(forwarded)) ip = forwarded;
  }
  if (ip.startsWith('::ffff:')) ip = ip.slice(7);
  return { ip, userAgent: req.get('user-agent') ?? null, limitKey: rateLimitKey(deps, req) ?? ip };
}
