// Client IP and user agent for sessions, audit rows and rate limits (reference §1.1).
import { isIP } from 'node:net';
import type { Request } from 'express';
import type { Deps } from '../deps';
import type { ClientInfo } from '../services/context';

export function clientInfo(deps: Pick<Deps, 'config'>, req: Request): ClientInfo {
  let ip = req.socket.remoteAddress ?? '';
  if (deps.config.security.sbForwardedForEnabled) {
    const forwarded = req.get('sb-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded && isIP(forwarded)) ip = forwarded;
  }
  if (ip.startsWith('::ffff:')) ip = ip.slice(7);
  return { ip, userAgent: req.get('user-agent') ?? null };
}
