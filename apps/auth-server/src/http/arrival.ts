// When a request reached the server: stamped by the first middleware (app.ts), as soon as Node has read the
// request's headers, before body parsing and before any wait for a database connection. The refresh grant
// uses it to tell a burst of concurrent refreshes from a replay (services/sessions/refresh.ts).
import type { RequestHandler, Response } from 'express';
import type { Clock } from '../clock';

export function stampArrival(clock: Clock): RequestHandler {
  return (_req, res, next) => {
    res.locals.receivedAt = clock.now();
    next();
  };
}

export function receivedAt(res: Response): Date | undefined {
  const value = res.locals.receivedAt as unknown;
  return value instanceof Date ? value : undefined;
}
