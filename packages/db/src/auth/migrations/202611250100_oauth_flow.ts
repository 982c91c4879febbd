// External sign-in (issue 15): a provider that itself requires PKCE (twitter) gets a verifier that the server
// makes and keeps for that one flow (GoTrue keeps it in oauth_client_state; a flow has at most one).
import type { Kysely } from 'kysely';
import { execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { t }: AuthNames): Promise<void> {
  await execAll(db, [`alter table ${t('flow_state')} add column provider_code_verifier text`]);
}
