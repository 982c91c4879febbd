// DELETE /user/identities/<id> (reference §1.4.16): a user keeps at least one identity, and the one that
// carries the account's address stays while it is the only one that does.
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import type { IdentityRow, UserRow } from '../../queries/columns';
import { deleteIdentity, findIdentitiesByUserId } from '../../queries/identities';
import { syncProvidersWithIdentities } from '../../queries/users';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';

export async function unlinkIdentity(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  input: { user: UserRow; identityId: string; client: ClientInfo },
): Promise<void> {
  if (!deps.config.security.manualLinkingEnabled) throw new ApiError(404, ErrorCode.manual_linking_disabled, 'Manual linking is disabled');
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (tx) => {
    // Locks the user's row: two unlinks at once cannot both see a second identity.
    await tx.selectFrom('auth.users').select('id').where('id', '=', input.user.id).forUpdate().execute();
    const identities = await findIdentitiesByUserId(tx, input.user.id);
    const identity = identities.find((i) => i.id === input.identityId);
    if (!identity) throw new ApiError(422, ErrorCode.identity_not_found, 'Identity doesn\'t exist');
    if (identities.length <= 1) throw new ApiError(422, ErrorCode.single_identity_not_deletable, 'User must have at least 1 identity after unlinking');
    if (carriesOnlyAddress(identity, identities, input.user)) {
      throw new ApiError(422, ErrorCode.email_conflict_identity_not_deletable,
        'Unable to unlink identity due to email conflict: the user\'s email is only held by this identity');
    }
    await deleteIdentity(tx, identity.id);
    await syncProvidersWithIdentities(tx, input.user.id, now);
    await audit(tx, { actor: input.user, action: AuditAction.identityUnlinked, client: input.client, at: now, traits: { provider: identity.provider, identity_id: identity.id } });
  });
}

function carriesOnlyAddress(identity: IdentityRow, all: IdentityRow[], user: UserRow): boolean {
  const email = user.email?.toLowerCase();
  if (!email || identity.email !== email) return false;
  return !all.some((other) => other.id !== identity.id && other.email === email);
}
