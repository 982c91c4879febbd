// Signs a user out everywhere for an admin (POST /admin/users/:user_id/logout, Keyzone's: GoTrue's admin API has
// no such call). Deleting the sessions ends every refresh token with them, and the access tokens already issued
// stop working at once too: every user route checks that the token's session still exists.
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import { lockUserById } from '../../queries/admin-user-writes';
import { deleteSessions } from '../../queries/sessions';
import { isUuid } from '../../uuid';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import type { AdminActor } from './users';

export async function signOutUserEverywhere(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { id: string; actor: AdminActor; client: ClientInfo },
): Promise<{ sessions_ended: number }> {
  const notFound = () => new ApiError(404, ErrorCode.user_not_found, 'User not found');
  if (!isUuid(input.id)) throw notFound();
  return deps.db.transaction().execute(async (tx) => {
    const user = await lockUserById(tx, input.id);
    if (!user) throw notFound();
    const ended = await deleteSessions(tx, user.id);
    await audit(tx, {
      actor: input.actor, action: AuditAction.logout, client: input.client, at: deps.clock.now(),
      traits: { user_id: user.id, user_email: user.email ?? '', sessions_ended: ended },
    });
    return { sessions_ended: ended };
  });
}
