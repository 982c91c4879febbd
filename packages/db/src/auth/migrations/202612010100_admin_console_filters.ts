// The admin console's user filters at a million users (issue 43). A keyset page walks (created_at DESC, id) and
// checks each row; a filter few rows match (banned: usually none) would walk the whole table to say "nothing".
// These indexes let the planner start from the few rows instead (bench/README-admin.md: banned=true 370 ms ->
// a few ms, provider=google 79 ms -> a few ms):
//   banned:   the partial index holds only users ever banned, in listing order; the query says
//             `banned_until IS NOT NULL` so the planner may use it
//   provider: identities by (provider, user_id), for the semi-join from a rare provider's identities
import type { Kysely } from 'kysely';
import { execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { n, t }: AuthNames): Promise<void> {
  await execAll(db, [
    `create index ${n('users_banned_created_at_idx')} on ${t('users')} (created_at desc, id) where banned_until is not null`,
    `create index ${n('identities_provider_user_id_idx')} on ${t('identities')} (provider, user_id)`,
  ]);
}
