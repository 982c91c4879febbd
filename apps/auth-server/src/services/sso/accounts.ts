// Who an accepted assertion is. As in GoTrue, each SSO provider is its own account domain: its users are
// `is_sso_user` accounts with the identity `sso:<provider id>`, never linked to a password or OAuth account with the
// same address (an IdP asserting someone's address must not open their account), and their address, kept as the
// IdP says it, is confirmed.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode, Messages } from '../../errors';
import type { UserRow } from '../../queries/columns';
import { findIdentityByProviderForUpdate, insertIdentity, refreshIdentity } from '../../queries/identities';
import { updateSsoUserProfile } from '../../queries/sso';
import { findUserById, insertUser, type Executor } from '../../queries/users';
import { approveNewUser } from '../hooks/before-user-created';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { isBanned } from '../sessions/accounts';

export interface SsoIdentity {
  providerId: string;
  /** The IdP's stable ID for the user. */
  subject: string;
  email: string;
  /** identity_data / user_metadata: the mapped claims with sub, iss, email. */
  data: Record<string, unknown>;
}

export async function resolveSsoUser(
  deps: Pick<Deps, 'config' | 'clock' | 'db' | 'log'>,
  tx: Executor,
  input: SsoIdentity & { client: ClientInfo },
): Promise<UserRow> {
  const now = deps.clock.now();
  const provider = `sso:${input.providerId}`;
  const identity = await findIdentityByProviderForUpdate(tx, provider, input.subject);
  if (identity) {
    await refreshIdentity(tx, identity.id, input.data, now);
    await updateSsoUserProfile(tx, { id: identity.user_id, email: input.email, data: input.data, at: now });
    const user = await findUserById(tx, identity.user_id);
    if (!user) throw new ApiError(404, ErrorCode.user_not_found, 'User not found');
    if (isBanned(user, now)) throw new ApiError(400, ErrorCode.user_banned, Messages.userBanned);
    return user;
  }
  if (deps.config.disableSignup) throw new ApiError(422, ErrorCode.signup_disabled, Messages.signupsDisabled);
  const user = await insertUser(tx, {
    id: randomUUID(),
    aud: deps.config.jwt.aud,
    role: deps.config.jwt.defaultGroupName,
    email: input.email,
    phone: null,
    encrypted_password: '',
    email_confirmed_at: now,
    confirmation_sent_at: null,
    raw_app_meta_data: { provider, providers: [provider] },
    raw_user_meta_data: input.data,
    is_anonymous: false,
    is_sso_user: true,
    created_at: now,
    updated_at: now,
  });
  await insertIdentity(tx, {
    id: randomUUID(), provider_id: input.subject, user_id: user.id, identity_data: input.data, provider, last_sign_in_at: now, created_at: now, updated_at: now,
  });
  await approveNewUser(deps, user, input.client);
  await audit(tx, { actor: user, action: AuditAction.userSignedUp, client: input.client, at: now, traits: { provider } });
  return user;
}
