// SQL for auth.one_time_tokens (mirrors the *_token columns of auth.users, reference §5.1).
import type { OneTimeTokenType } from '@keyzone/db';
import type { Executor } from './users';

export type { OneTimeTokenType };

export async function findOneTimeTokenHash(db: Executor, userId: string, type: OneTimeTokenType): Promise<string | undefined> {
  const row = await db
    .selectFrom('auth.one_time_tokens')
    .select(['token_hash'])
    .where('user_id', '=', userId)
    .where('token_type', '=', type)
    .executeTakeFirst();
  return row?.token_hash;
}

/** Tokens are single use: a password change or a confirmation clears them all. */
export async function deleteOneTimeTokens(db: Executor, userId: string, type?: OneTimeTokenType): Promise<void> {
  let query = db.deleteFrom('auth.one_time_tokens').where('user_id', '=', userId);
  if (type) query = query.where('token_type', '=', type);
  await query.execute();
}
