// Who an external sign-in is (reference §7.3 step 3), shared by /callback and grant_type=id_token:
//   - the provider's identity exists: that user, with the identity's data refreshed;
//   - a linking flow: the identity joins the signed-in user (unless another user has it);
//   - a verified address that matches a user: the identity joins that user (automatic linking);
//   - else a new user, unless sign-ups are off. An unverified address never links, and a new user with
//     one must confirm it by mail first.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps';
import { normalizeEmail } from '../sessions/accounts';
import { ApiError, ErrorCode, Messages } from '../../errors';
import type { IdentityRow, UserRow } from '../../queries/columns';
import { findIdentityByProviderForUpdate, insertIdentity, refreshIdentity } from '../../queries/identities';
import { addProviderToUser, confirmEmailFromProvider, findUserByEmail, findUserById, insertUser, setConfirmationSentAt, type Executor } from '../../queries/users';
import type { ExternalProfile } from './provider-types';
import { isBanned } from '../sessions/accounts';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { sendSignupConfirmation } from '../email/signup-confirmation';
import { approveNewUser } from '../hooks/before-user-created';

export interface ExternalSignInInput {
  provider: string;
  profile: ExternalProfile;
  /** Manual linking: the signed-in user the identity is for. */
  linkingTargetId?: string | null;
  /** The provider may have no address for a user (snapchat, twitter). */
  emailOptional: boolean;
  client: ClientInfo;
  /** Where the confirmation mail of an unverified address leads. */
  redirectTo: string;
}

export type ExternalSignInOutcome =
  | { kind: 'signed-in'; user: UserRow }
  /** A new account whose address the provider did not verify: a confirmation mail went out. */
  | { kind: 'needs-verification'; user: UserRow };

/** identity_data as GoTrue stores it: the provider's claims under the names clients read. */
export function identityData(profile: ExternalProfile): Record<string, unknown> {
  const data: Record<string, unknown> = {
    sub: profile.providerId,
    provider_id: profile.providerId,
    email_verified: profile.emailVerified,
    phone_verified: false,
  };
  if (profile.issuer) data.iss = profile.issuer;
  if (profile.email) data.email = profile.email.toLowerCase();
  if (profile.name) Object.assign(data, { name: profile.name, full_name: profile.name });
  if (profile.avatarUrl) Object.assign(data, { avatar_url: profile.avatarUrl, picture: profile.avatarUrl });
  if (profile.userName) Object.assign(data, { user_name: profile.userName, preferred_username: profile.userName });
  if (profile.customClaims) data.custom_claims = profile.customClaims;
  return data;
}

/**
 * The provider's address as sign-up addresses are kept: trimmed, lowercased, and of valid form (issue 26: a
 * profile with ' Victim@Example.com ' made a second user, spaces kept). A malformed one is a 422.
 */
function withCheckedEmail(profile: ExternalProfile, provider: string): ExternalProfile {
  if (profile.email === undefined || profile.email === null || profile.email.trim() === '') return { ...profile, email: undefined };
  try {
    return { ...profile, email: normalizeEmail(profile.email) };
  } catch {
    throw new ApiError(422, ErrorCode.validation_failed, `Error getting user email from external provider ${provider}: the address is not valid`);
  }
}

export async function resolveExternalUser(
  deps: Pick<Deps, 'config' | 'clock' | 'mailer' | 'db' | 'log'>,
  tx: Executor,
  input: ExternalSignInInput,
): Promise<ExternalSignInOutcome> {
  const now = deps.clock.now();
  const { provider } = input;
  const profile = withCheckedEmail(input.profile, provider);
  const data = identityData(profile);
  const email = profile.email;
  const identity = await findIdentityByProviderForUpdate(tx, provider, profile.providerId);

  if (input.linkingTargetId) {
    if (identity && identity.user_id !== input.linkingTargetId) {
      throw new ApiError(422, ErrorCode.identity_already_exists, 'Identity is already linked to another user');
    }
    const target = await findUserById(tx, input.linkingTargetId);
    if (!target) throw new ApiError(404, ErrorCode.user_not_found, 'User not found');
    if (identity) await refreshIdentity(tx, identity.id, data, now);
    else await link(tx, { user: target, provider, profile, data, now, client: input.client });
    return { kind: 'signed-in', user: await usable(tx, target.id, now) };
  }

  if (identity) {
    await refreshIdentity(tx, identity.id, data, now);
    const user = await usable(tx, identity.user_id, now);
    if (profile.emailVerified && email && user.email === email && !user.email_confirmed_at) await confirmEmailFromProvider(tx, user.id, now);
    return { kind: 'signed-in', user: await usable(tx, user.id, now) };
  }

  const existing = email ? await findUserByEmail(tx, email, deps.config.jwt.aud) : undefined;
  if (existing) {
    if (!profile.emailVerified) {
      throw new ApiError(422, ErrorCode.provider_email_needs_verification,
        `Unverified email with ${provider}. Verify the email with ${provider} and try again.`);
    }
    await link(tx, { user: existing, provider, profile, data, now, client: input.client });
    await confirmEmailFromProvider(tx, existing.id, now);
    return { kind: 'signed-in', user: await usable(tx, existing.id, now) };
  }

  if (!email && !input.emailOptional) {
    // GoTrue answers 500 here; it is the provider account's doing, not a server fault.
    throw new ApiError(422, ErrorCode.validation_failed, `Error getting user email from external provider ${provider}: it shared no email address`);
  }
  if (deps.config.disableSignup) throw new ApiError(422, ErrorCode.signup_disabled, Messages.signupsDisabled);
  const confirmed = !email || profile.emailVerified || deps.config.mailer.autoconfirm;
  const user = await insertUser(tx, {
    id: randomUUID(),
    aud: deps.config.jwt.aud,
    role: deps.config.jwt.defaultGroupName,
    email: email ?? null,
    phone: null,
    encrypted_password: '',
    email_confirmed_at: email && confirmed ? now : null,
    confirmation_sent_at: null,
    raw_app_meta_data: { provider, providers: [provider] },
    raw_user_meta_data: data,
    is_anonymous: false,
    created_at: now,
    updated_at: now,
  });
  await insertIdentity(tx, { id: randomUUID(), provider_id: profile.providerId, user_id: user.id, identity_data: data, provider, last_sign_in_at: now, created_at: now, updated_at: now });
  await approveNewUser(deps, user, input.client);
  await audit(tx, { actor: user, action: AuditAction.userSignedUp, client: input.client, at: now, traits: { provider } });
  if (confirmed) return { kind: 'signed-in', user };
  const sentAt = await sendSignupConfirmation(deps, tx, {
    user,
    client: input.client,
    options: { redirectTo: input.redirectTo, codeChallenge: undefined, codeChallengeMethod: undefined },
  });
  if (sentAt) await setConfirmationSentAt(tx, user.id, sentAt);
  return { kind: 'needs-verification', user };
}

async function link(
  tx: Executor,
  input: { user: UserRow; provider: string; profile: ExternalProfile; data: Record<string, unknown>; now: Date; client: ClientInfo },
): Promise<IdentityRow> {
  const identity = await insertIdentity(tx, {
    id: randomUUID(), provider_id: input.profile.providerId, user_id: input.user.id, identity_data: input.data,
    provider: input.provider, last_sign_in_at: input.now, created_at: input.now, updated_at: input.now,
  });
  await addProviderToUser(tx, input.user.id, input.provider, input.now);
  await audit(tx, { actor: input.user, action: AuditAction.identityLinked, client: input.client, at: input.now, traits: { provider: input.provider } });
  return identity;
}

async function usable(tx: Executor, userId: string, now: Date): Promise<UserRow> {
  const user = await findUserById(tx, userId);
  if (!user) throw new ApiError(404, ErrorCode.user_not_found, 'User not found');
  if (isBanned(user, now)) throw new ApiError(400, ErrorCode.user_banned, Messages.userBanned);
  return user;
}
