// POST /admin/generate_link (reference §1.4.14): stores the same one-time token an email flow
// would, sends nothing, and answers the user plus action_link, email_otp, hashed_token,
// verification_type and redirect_to (the action link's token, type and redirect_to as fields).
// Tokens, links and redirects come from the email services (prepareEmailToken), so a generated
// link verifies exactly like a mailed one.
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import type { UserRow } from '../../queries/columns';
import { findIdentitiesByUserId } from '../../queries/identities';
import { setInvitedAt, setPasswordHash, setPendingEmailChange } from '../../queries/email-users';
import { findUserByEmail, findUserById, mergeUserMetadata, type Executor } from '../../queries/users';
import { serializeUser, type UserJson } from '../../serialize';
import { normalizeEmail } from '../sessions/accounts';
import { Msg, type AdminActor } from './users';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { prepareEmailToken, type EmailAction } from '../email/tokens';
import { createEmailUser } from '../email/users';
import { checkPasswordStrength, hashPassword } from '../sessions/passwords';

export const LINK_TYPES = ['signup', 'magiclink', 'recovery', 'invite', 'email_change_current', 'email_change_new'] as const;
export type LinkType = (typeof LINK_TYPES)[number];

export interface GenerateLinkInput {
  type: string;
  email: string;
  newEmail?: string;
  password?: string;
  data?: Record<string, unknown>;
  /** Already resolved against the allow-list (SITE_URL when absent or not allowed). */
  redirectTo: string;
  actor: AdminActor;
  client: ClientInfo;
}

export type GenerateLinkResult = UserJson & {
  action_link: string;
  email_otp: string;
  hashed_token: string;
  verification_type: string;
  redirect_to: string;
};

const emailExists = () => new ApiError(422, ErrorCode.email_exists, Msg.emailExists);

function linkType(type: string): LinkType {
  const found = LINK_TYPES.find((t) => t === type);
  if (!found) throw new ApiError(400, ErrorCode.validation_failed, `Invalid email action link type requested: ${JSON.stringify(type)}`);
  return found;
}

export async function generateLink(deps: Deps, input: GenerateLinkInput): Promise<GenerateLinkResult> {
  const { config } = deps;
  let type = linkType(input.type);
  const email = normalizeEmail(input.email);
  const now = deps.clock.now();
  const existing = await findUserByEmail(deps.db, email, config.jwt.aud);

  if (!existing) {
    // GoTrue: a magic link for an unknown address becomes a sign-up; the rest need a user.
    if (type === 'magiclink') type = 'signup';
    else if (type !== 'signup' && type !== 'invite') throw new ApiError(404, ErrorCode.user_not_found, 'User with this email not found');
  }
  if (type === 'email_change_current' && !config.mailer.secureEmailChangeEnabled) {
    throw new ApiError(400, ErrorCode.validation_failed, 'Enable secure email change to generate link for current email');
  }
  let newEmail: string | undefined;
  if (type === 'email_change_current' || type === 'email_change_new') {
    if (!input.newEmail) throw new ApiError(400, ErrorCode.validation_failed, 'new_email is required for email change links');
    newEmail = normalizeEmail(input.newEmail);
    const taken = await findUserByEmail(deps.db, newEmail, config.jwt.aud);
    if (taken && taken.id !== existing?.id) throw emailExists();
  }
  if ((type === 'signup' || type === 'invite') && existing && existing.email_confirmed_at !== null) throw emailExists();
  if (type === 'signup' && input.password !== undefined) checkPasswordStrength(input.password, config.password);
  const passwordHash = type === 'signup' && input.password !== undefined ? await hashPassword(input.password, config.password.bcryptCost) : undefined;

  const { userId, prepared } = await deps.db.transaction().execute(async (tx) => {
    const user = await userForLink(deps, tx, { type, email, existing, passwordHash, data: input.data ?? {}, now, actor: input.actor, client: input.client });
    if (type === 'invite') await setInvitedAt(tx, user.id, now);
    if (newEmail) await setPendingEmailChange(tx, user.id, newEmail, now);
    if (type === 'magiclink' || type === 'recovery') {
      await audit(tx, { actor: user, action: AuditAction.userRecoveryRequested, client: input.client, at: now });
    }
    const token = await prepareEmailToken(deps, tx, {
      target: { userId: user.id, email, newEmail },
      action: type satisfies EmailAction,
      redirectTo: input.redirectTo,
      now,
    });
    return { userId: user.id, prepared: token };
  });

  const user = (await findUserById(deps.db, userId)) as UserRow;
  return {
    ...serializeUser(user, await findIdentitiesByUserId(deps.db, userId)),
    action_link: prepared.actionLink,
    email_otp: prepared.otp,
    hashed_token: prepared.tokenHash,
    verification_type: prepared.verificationType,
    redirect_to: prepared.redirectTo,
  };
}

/** The user the link is for: created for a new sign-up or invitation, else the existing one. */
async function userForLink(
  deps: Deps,
  tx: Executor,
  input: {
    type: LinkType;
    email: string;
    existing: UserRow | undefined;
    passwordHash: string | undefined;
    data: Record<string, unknown>;
    now: Date;
    actor: AdminActor;
    client: ClientInfo;
  },
): Promise<UserRow> {
  const { existing, now } = input;
  if (existing) {
    if ((input.type === 'signup' || input.type === 'invite') && Object.keys(input.data).length > 0) {
      const merged = await mergeUserMetadata(tx, existing.id, input.data, now);
      if (input.passwordHash) await setPasswordHash(tx, existing.id, input.passwordHash, now);
      return { ...existing, raw_user_meta_data: merged };
    }
    if (input.passwordHash) await setPasswordHash(tx, existing.id, input.passwordHash, now);
    return existing;
  }
  const user = await createEmailUser(deps, tx, {
    email: input.email,
    data: input.data,
    confirmed: false,
    // A sign-up link without a password gets one nobody knows (as GoTrue's magic-link sign-up);
    // an invitation has none until the invitee sets one.
    randomPassword: input.type === 'signup' && !input.passwordHash,
    now,
  });
  if (input.passwordHash) await setPasswordHash(tx, user.id, input.passwordHash, now);
  await audit(tx, {
    actor: input.actor,
    action: input.type === 'invite' ? AuditAction.userInvited : AuditAction.userSignedUp,
    client: input.client,
    at: now,
    traits: { user_id: user.id, user_email: input.email },
  });
  return user;
}
