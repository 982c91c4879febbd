// SQL for auth.refresh_tokens (v1 opaque tokens, reference §5.3).
import type { Executor } from './users';
import { refreshTokenColumns, type RefreshTokenRow } from './columns';

export async function insertRefreshToken(
  db: Executor,
  token: { token: string; user_id: string; session_id: string; parent: string | null; at: Date },
): Promise<RefreshTokenRow> {
  return (await db
    .insertInto('auth.refresh_tokens')
    .values({
      instance_id: '00000000-0000-0000-0000-000000000000',
      token: token.token,
      user_id: token.user_id,
      session_id: token.session_id,
      parent: token.parent,
      revoked: false,
      created_at: token.at,
      updated_at: token.at,
    } as never)
    .returning(refreshTokenColumns)
    .executeTakeFirstOrThrow()) as RefreshTokenRow;
}

export async function findRefreshToken(db: Executor, token: string): Promise<RefreshTokenRow | undefined> {
  return (await db.selectFrom('auth.refresh_tokens').select(refreshTokenColumns).where('token', '=', token).executeTakeFirst()) as
    | RefreshTokenRow
    | undefined;
}

export async function revokeSessionTokens(db: Executor, sessionId: string, at: Date): Promise<number> {
  const result = await db
    .updateTable('auth.refresh_tokens')
    .set({ revoked: true, updated_at: at } as never)
    .where('session_id', '=', sessionId)
    .where('revoked', '=', false)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
