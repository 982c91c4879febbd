// External sign-in bound to the browser that started it (issue 26): the SHA-256 of a random value that /authorize
// also sets as a short-lived HttpOnly cookie; /callback completes the flow only in a browser holding it.
import type { Kysely } from 'kysely';
import { execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { t }: AuthNames): Promise<void> {
  await execAll(db, [`alter table ${t('flow_state')} add column browser_binding text`]);
}
