// Client IP and user agent for sessions, audit rows and rate limits (reference §1.1).
import { isIP } from 'node:net';
import type { Request } from 'express';
import type { Deps } from '../deps';
import type { ClientInfo } from '../services/context';

/**
 * The first value of the header named by RATE_LIMIT_HEADER (set by a trusted proxy), else of
 * Sb-Forwarded-For when SECURITY_SB_FORWARDED_FOR_ENABLED; undefined with neither.
 */
export function rateLimitKey(deps: Pick<Deps, 'config'>, req: Request): string | undefined {
  const { config } = deps;
  const header = config.rateLimit.header ? req.get(config.rateLimit.header) : undefined;
  const forwarded = !header && config.security.sbForwardedForEnabled ? req.get('sb-forwarded-for') : undefined;
  const key = (header ?? forwarded)?.split(',')[0]?.trim();
  return key || undefined;
}

export function clientInfo(deps: Pick<Deps, 'config'>, req: Request): ClientInfo {
  let ip = req.socket.remoteAddress ?? '';
  if (deps.config.security.sbForwardedForEnabled) {
    const forwarded = req.get('sb-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded && isIP(forwarded)) ip = forwarded;
  }
  if (ip.startsWith('::ffff:')) ip = ip.slice(7);
  return { ip, userAgent: req.get('user-agent') ?? null, limitKey: rateLimitKey(deps, req) ?? ip };
}
