// SQL for email one-time tokens: auth.one_time_tokens is the source of truth; the *_token and
// *_sent_at columns of auth.users mirror it as GoTrue does (reference §5.1, §5.2).
import type { Executor } from './users';

export type EmailTokenType =
  | 'confirmation_token'
  | 'recovery_token'
  | 'email_change_token_new'
  | 'email_change_token_current'
  | 'reauthentication_token'
  | 'phone_change_token';

/** The users columns each token type is mirrored in. */
export const TOKEN_COLUMNS: Record<EmailTokenType, { token: string; sentAt: string }> = {
  confirmation_token: { token: 'confirmation_token', sentAt: 'confirmation_sent_at' },
  recovery_token: { token: 'recovery_token', sentAt: 'recovery_sent_at' },
  email_change_token_new: { token: 'email_change_token_new', sentAt: 'email_change_sent_at' },
  email_change_token_current: { token: 'email_change_token_current', sentAt: 'email_change_sent_at' },
  reauthentication_token: { token: 'reauthentication_token', sentAt: 'reauthentication_sent_at' },
  phone_change_token: { token: 'phone_change_token', sentAt: 'phone_change_sent_at' },
};

/**
 * Writes the token into its users column and stamps *_sent_at, but only when the previous send is
 * at least `notSentAfter` old (SMTP_MAX_FREQUENCY): the check and the write are one statement, so
 * two concurrent requests cannot both pass. Returns false when the frequency guard refused.
 */
export async function markTokenSent(
  db: Executor,
  input: { userId: string; type: EmailTokenType; tokenHash: string; sentAt: Date; notSentAfter?: Date },
): Promise<boolean> {
  const { token, sentAt } = TOKEN_COLUMNS[input.type];
  let query = db
    .updateTable('auth.users')
    .set({ [token]: input.tokenHash, [sentAt]: input.sentAt } as never)
    .where('id', '=', input.userId);
  const limit = input.notSentAfter;
  if (limit) {
    query = query.where((eb) => eb.or([eb(sentAt as never, 'is', null), eb(sentAt as never, '<=', limit as never)]));
  }
  const row = await query.returning(['id']).executeTakeFirst();
  return row !== undefined;
}

export async function findTokenSentAt(db: Executor, userId: string, type: EmailTokenType): Promise<Date | undefined> {
  const { sentAt } = TOKEN_COLUMNS[type];
  const row = (await db
    .selectFrom('auth.users')
    .select([sentAt as never])
    .where('id', '=', userId)
    .executeTakeFirst()) as Record<string, Date | string | null> | undefined;
  const value = row?.[sentAt];
  return value ? new Date(value) : undefined;
}

/** One live token per (user, type): a new one replaces the old. `issuedAt` drives expiry. */
export async function upsertOneTimeToken(
  db: Executor,
  input: { userId: string; type: EmailTokenType; tokenHash: string; relatesTo: string; issuedAt: Date },
): Promise<void> {
  await db
    .insertInto('auth.one_time_tokens')
    .values({
      user_id: input.userId,
      token_type: input.type,
      token_hash: input.tokenHash,
      relates_to: input.relatesTo,
      created_at: input.issuedAt,
      updated_at: input.issuedAt,
    })
    .onConflict((oc) =>
      oc.columns(['user_id', 'token_type']).doUpdateSet({
        token_hash: input.tokenHash,
        relates_to: input.relatesTo,
        created_at: input.issuedAt,
        updated_at: input.issuedAt,
      }),
    )
    .execute();
}

export interface ConsumedToken {
  userId: string;
  type: EmailTokenType;
  tokenHash: string;
  relatesTo: string;
}

/**
 * Single use, closed in SQL: the matching unexpired row is deleted and returned in one statement,
 * so a second use (even concurrent) finds nothing. Expired rows are left for cleanup and match nothing.
 */
export async function consumeOneTimeToken(
  db: Executor,
  input: { tokenHashes: string[]; types: EmailTokenType[]; relatesTo?: string; issuedAfter: Date },
): Promise<ConsumedToken | undefined> {
  let query = db
    .deleteFrom('auth.one_time_tokens')
    .where('token_hash', 'in', input.tokenHashes)
    .where('token_type', 'in', input.types)
    .where('updated_at', '>', input.issuedAfter);
  if (input.relatesTo !== undefined) query = query.where('relates_to', '=', input.relatesTo);
  const rows = await query.returning(['user_id', 'token_type', 'token_hash', 'relates_to']).execute();
  const row = rows[0];
  if (!row) return undefined;
  return { userId: row.user_id, type: row.token_type as EmailTokenType, tokenHash: row.token_hash, relatesTo: row.relates_to };
}

/** Clears the users mirror column of one token type (after it was consumed). */
export async function clearTokenColumn(db: Executor, userId: string, type: EmailTokenType): Promise<void> {
  await db.updateTable('auth.users').set({ [TOKEN_COLUMNS[type].token]: '' } as never).where('id', '=', userId).execute();
}

/** Every pending token of a user: used after a verification and on password change. */
export async function clearAllTokens(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('auth.one_time_tokens').where('user_id', '=', userId).execute();
  await db
    .updateTable('auth.users')
    .set({
      confirmation_token: '',
      recovery_token: '',
      email_change_token_new: '',
      email_change_token_current: '',
      reauthentication_token: '',
      phone_change_token: '',
    } as never)
    .where('id', '=', userId)
    .execute();
}

/** Wrong codes a token survives; the next wrong one deletes it (issue 11: code guessing). */
export const MAX_FAILED_ATTEMPTS = 5;

/**
 * Counts a wrong code against the live tokens of these types bound to `relatesTo`, and deletes
 * those that reached MAX_FAILED_ATTEMPTS, whatever address the guesses came from.
 */
export async function recordWrongCode(db: Executor, input: { relatesTo: string; types: EmailTokenType[] }): Promise<void> {
  await db
    .updateTable('auth.one_time_tokens')
    .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }))
    .where('relates_to', '=', input.relatesTo)
    .where('token_type', 'in', input.types)
    .execute();
  await db
    .deleteFrom('auth.one_time_tokens')
    .where('relates_to', '=', input.relatesTo)
    .where('token_type', 'in', input.types)
    .where('failed_attempts', '>=', MAX_FAILED_ATTEMPTS)
    .execute();
}
