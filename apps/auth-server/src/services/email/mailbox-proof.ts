// What a confirmation by mail proves, and what it must undo (issue 26, GoTrue's RemoveUnconfirmedIdentities):
// an account that was never confirmed may carry external identities whose provider did not verify this address
// (anyone can register one with a provider that hands out unverified addresses). When the mailbox owner confirms
// the address, those identities are dropped, so the provider account that made the unconfirmed user cannot sign
// in to the now confirmed one. Identities whose provider verified this very address stay.
import { randomUUID } from 'node:crypto';
import type { IdentityRow, UserRow } from '../../queries/columns';
import { deleteIdentity, findIdentitiesByUserId, insertIdentity } from '../../queries/identities';
import { syncProvidersWithIdentities } from '../../queries/users';
import type { Executor } from '../../queries/users';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';

function verifiedThisAddress(identity: IdentityRow, email: string): boolean {
  const data = (identity.identity_data ?? {}) as Record<string, unknown>;
  return data.email_verified === true && typeof data.email === 'string' && data.email.trim().toLowerCase() === email;
}

/** Call inside the confirming transaction, only when `user` (as read before) had not confirmed its address. */
export async function dropIdentitiesWithoutMailboxProof(tx: Executor, user: UserRow, client: ClientInfo, at: Date): Promise<void> {
  const email = user.email?.toLowerCase();
  if (!email || user.email_confirmed_at !== null) return;
  const identities = await findIdentitiesByUserId(tx, user.id);
  const unproven = identities.filter((i) => i.provider !== 'email' && i.provider !== 'phone' && !verifiedThisAddress(i, email));
  if (unproven.length === 0) return;
  for (const identity of unproven) {
    await deleteIdentity(tx, identity.id);
    await audit(tx, { actor: user, action: AuditAction.identityUnlinked, client, at, traits: { provider: identity.provider, identity_id: identity.id, reason: 'address_confirmed_by_mail' } });
  }
  // The address is now proven by mail: an email identity carries it, so the user keeps a way to sign in.
  if (!identities.some((i) => i.provider === 'email')) {
    await insertIdentity(tx, {
      id: randomUUID(), provider_id: user.id, user_id: user.id, provider: 'email',
      identity_data: { sub: user.id, email, email_verified: true, phone_verified: false },
      last_sign_in_at: null, created_at: at, updated_at: at,
    });
  }
  await syncProvidersWithIdentities(tx, user.id, at);
}
