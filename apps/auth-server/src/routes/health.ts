// GET /health (reference §1.3): name stays "GoTrue" so existing health checks keep matching. It is
// a readiness check: it answers 200 only when the database answers (within 2 s), else 503
// database_unavailable. GET /health/live is the liveness check: the process serves HTTP, nothing more,
// so an orchestrator does not restart a healthy server because its database is down.
import type { RequestHandler } from 'express';
import { sql } from 'kysely';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { DESCRIPTION, VERSION } from '../version';

const DATABASE_CHECK_TIMEOUT_MS = 2000;

async function databaseAnswers(deps: Pick<Deps, 'db'>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), DATABASE_CHECK_TIMEOUT_MS);
  });
  const check = sql`select 1`.execute(deps.db).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([check, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function health(deps: Pick<Deps, 'db'>): RequestHandler {
  return async (_req, res) => {
    if (!(await databaseAnswers(deps))) {
      throw new ApiError(503, ErrorCode.database_unavailable, 'The database is unreachable', { headers: { 'Retry-After': '5' } });
    }
    res.json({ version: VERSION, name: 'GoTrue', description: DESCRIPTION });
  };
}

export function liveness(): RequestHandler {
  return (_req, res) => {
    res.json({ version: VERSION, name: 'GoTrue', description: DESCRIPTION, status: 'live' });
  };
}
