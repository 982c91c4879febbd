// A user's audit trail at a million entries (issue 43). The admin console's user page pages the entries a user did
// (payload.actor_id) or that were done to them (payload.traits.user_id, written by admin actions); in listing order
// only the (created_at DESC, id) index existed, so a user with few entries made each page walk the whole log
// (bench/README-admin.md: 1.2 s p50 at a million entries). Each index below holds one side in listing order, so a
// keyset page reads from a position in each (queries/admin-audit.ts merges the two) and costs the same at any depth:
//   actor:   every entry has one (the cost of one more index entry per audit row, token refreshes included)
//   subject: partial, only the entries that name a user in their traits (admin actions: few, so nearly free)
import type { Kysely } from 'kysely';
import { execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { n, t }: AuthNames): Promise<void> {
  await execAll(db, [
    `create index ${n('audit_log_entries_actor_id_idx')} on ${t('audit_log_entries')} ((payload->>'actor_id'), created_at desc, id)`,
    `create index ${n('audit_log_entries_subject_idx')} on ${t('audit_log_entries')} ((payload->'traits'->>'user_id'), created_at desc, id)
       where (payload->'traits'->>'user_id') is not null`,
  ]);
}
