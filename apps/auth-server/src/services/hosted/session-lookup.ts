// The user and session a hosted-session cookie's refresh token belongs to (for sign-out).
import type { UserRow } from '../../queries/columns';
import { findRefreshToken } from '../../queries/refresh-tokens';
import { findUserById, type Executor } from '../../queries/users';

export async function findSessionByRefreshToken(db: Executor, token: string): Promise<{ user: UserRow; sessionId: string } | undefined> {
  const row = await findRefreshToken(db, token);
  // Only the current token of a session signs it out: a spent one stands for nothing any more.
  if (!row?.session_id || !row.user_id || row.revoked) return undefined;
  const user = await findUserById(db, row.user_id);
  return user ? { user, sessionId: row.session_id } : undefined;
}
