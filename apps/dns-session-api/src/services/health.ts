import type { Deps } from '../deps';
import { pingDatabase } from '../queries/health';

/** Resolves when the database answers a trivial statement; rejects with its error otherwise. */
export function checkDatabase(deps: Pick<Deps, 'db'>): Promise<void> {
  return pingDatabase(deps.db);
}
