// POST /signup with a password, by email or by phone (reference §1.4.1): one flow, two channels.
// The channel says which provider, which contact column and which autoconfirm switch apply, and
// what to send when the account is not confirmed at once (a confirmation email, or a code by SMS).
import { randomUUID } from 'node:crypto';
import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode, Messages } from '../../errors';
import type { IdentityRow, UserRow } from '../../queries/columns';
import { setPasswordHash } from '../../queries/email-users';
import { findIdentitiesByUserId, insertIdentity } from '../../queries/identities';
import { findUserByEmail, findUserByPhone, insertUser, mergeUserMetadata, setLastSignIn, type Executor } from '../../queries/users';
import type { TokenResponseJson, UserJson } from '../../serialize';
import { serializeUser } from '../../serialize';
import { tokenResponse } from './access-token';
import { normalizeEmail } from './accounts';
import { audit, AuditAction } from '../platform/audit';
import { takeEmailBudgetWithoutMail } from '../email/budgets';
import type { ClientInfo } from '../platform/context';
import { checkPasswordStrength, hashPassword } from './passwords';
import { AmrMethod, createSession } from './sessions';
import { normalizePhone } from './sign-in';
import { sendSmsOtp } from '../phone/sms-codes';
import { sendSignupConfirmation, type ConfirmationOptions } from '../email/signup-confirmation';
import { approveNewUser } from '../hooks/before-user-created';

export type SignupResult = { kind: 'session'; body: TokenResponseJson } | { kind: 'user'; body: UserJson };

interface SignupChannel {
  provider: 'email' | 'phone';
  enabled: boolean;
  disabled: () => ApiError;
  autoconfirm: boolean;
  normalize(raw: string): string;
  find(db: Executor, contact: string, aud: string): Promise<UserRow | undefined>;
  confirmedAt(user: UserRow): Date | string | null;
  /** Sends the confirmation inside the transaction; returns confirmation_sent_at when sent. */
  confirm(tx: Executor, user: UserRow): Promise<Date | undefined>;
}

interface PasswordSignupInput {
  password: string;
  data: Record<string, unknown>;
  client: ClientInfo;
}

export interface EmailSignupInput extends PasswordSignupInput {
  email: string;
  confirmation: ConfirmationOptions;
}

export function signUpWithEmail(deps: Deps, input: EmailSignupInput): Promise<SignupResult> {
  return signUpWithPassword(deps, input.email, input, {
    provider: 'email',
    enabled: deps.config.external.email.enabled,
    disabled: () => new ApiError(400, ErrorCode.email_provider_disabled, Messages.emailSignupsDisabled),
    autoconfirm: deps.config.mailer.autoconfirm,
    normalize: normalizeEmail,
    find: findUserByEmail,
    confirmedAt: (user) => user.email_confirmed_at,
    confirm: (tx, user) => sendSignupConfirmation(deps, tx, { user, client: input.client, options: input.confirmation }),
  });
}

export function signUpWithPhone(deps: Deps, input: PasswordSignupInput & { phone: string }): Promise<SignupResult> {
  return signUpWithPassword(deps, input.phone, input, {
    provider: 'phone',
    enabled: deps.config.external.phone.enabled,
    disabled: () => new ApiError(400, ErrorCode.phone_provider_disabled, Messages.phoneSignupsDisabled),
    autoconfirm: deps.config.sms.autoconfirm,
    normalize: normalizePhone, // stored without '+'
    find: findUserByPhone,
    confirmedAt: (user) => user.phone_confirmed_at,
    confirm: async (tx, user) => {
      await sendSmsOtp(deps, tx, { userId: user.id, phone: user.phone ?? '', type: 'confirmation_token', client: input.client.limitKey, proven: false });
      return deps.clock.now();
    },
  });
}

async function signUpWithPassword(deps: Deps, rawContact: string, input: PasswordSignupInput, channel: SignupChannel): Promise<SignupResult> {
  const { config } = deps;
  if (config.disableSignup) throw new ApiError(422, ErrorCode.signup_disabled, Messages.signupsDisabled);
  if (!channel.enabled) throw channel.disabled();
  checkPasswordStrength(input.password, config.password);
  const contact = channel.normalize(rawContact);
  const contactOf = { [channel.provider]: contact } as { email?: string; phone?: string };
  const { provider, autoconfirm } = channel;
  const aud = config.jwt.aud;
  const now = deps.clock.now();

  const existing = await channel.find(deps.db, contact, aud);
  if (existing && channel.confirmedAt(existing) !== null) {
    // Issue 7 / spec Part 7: 400 with autoconfirm; otherwise a fabricated user (no enumeration).
    if (autoconfirm) throw new ApiError(400, ErrorCode.user_already_exists, Messages.userAlreadyRegistered);
    // The answer must not tell this address from a new one: the same bcrypt work, the same budget.
    await hashPassword(input.password, config.password.bcryptCost);
    if (provider === 'email' && deps.mailer) {
      await takeEmailBudgetWithoutMail(deps, { kind: 'confirmation', recipient: contact, client: input.client.limitKey });
    }
    await audit(deps.db, { actor: existing, action: AuditAction.userRepeatedSignup, client: input.client, at: now });
    return { kind: 'user', body: fabricatedUser(contactOf, aud, config.jwt.defaultGroupName, input.data, now) };
  }

  const hash = await hashPassword(input.password, config.password.bcryptCost);
  const result = await orDuplicate(() => deps.db.transaction().execute(async (tx) => {
    let user: UserRow;
    let identities: IdentityRow[];
    if (existing) {
      // Unconfirmed duplicate: keep the account, refresh its metadata, re-send the confirmation. The account takes
      // this sign-up's password: the confirmation sent now replaces the earlier one, so whoever confirms the address
      // with it signs in with the password they chose (issue 26). GoTrue keeps the first sign-up's password, which
      // lets someone who registered the victim's address first keep a password to the account the victim confirms.
      // Until then the password signs nobody in (the address is unconfirmed).
      await setPasswordHash(tx, existing.id, hash, now);
      user = { ...existing, raw_user_meta_data: await mergeUserMetadata(tx, existing.id, input.data, now) };
      identities = await findIdentitiesByUserId(tx, existing.id);
    } else {
      const id = randomUUID();
      user = await insertUser(tx, {
        id,
        aud,
        role: config.jwt.defaultGroupName,
        email: contactOf.email ?? null,
        phone: contactOf.phone ?? null,
        encrypted_password: hash,
        email_confirmed_at: provider === 'email' && autoconfirm ? now : null,
        phone_confirmed_at: provider === 'phone' && autoconfirm ? now : null,
        confirmation_sent_at: null,
        raw_app_meta_data: { provider, providers: [provider] },
        raw_user_meta_data: input.data,
        is_anonymous: false,
        created_at: now,
        updated_at: now,
      });
      const identity = await insertIdentity(tx, {
        id: randomUUID(),
        provider_id: id,
        user_id: id,
        identity_data: { sub: id, ...contactOf, email_verified: false, phone_verified: false, ...input.data },
        provider,
        last_sign_in_at: now,
        created_at: now,
        updated_at: now,
      });
      identities = [identity];
      await approveNewUser(deps, user, input.client);
      await audit(tx, { actor: user, action: AuditAction.userSignedUp, client: input.client, at: now, traits: { provider } });
    }
    if (!autoconfirm) {
      const sentAt = await channel.confirm(tx, user);
      if (sentAt) user = { ...user, confirmation_sent_at: sentAt };
      return { user, identities, issued: undefined };
    }
    const issued = await createSession(tx, { user, method: AmrMethod.password, client: input.client, at: now });
    await setLastSignIn(tx, user.id, now);
    user = { ...user, last_sign_in_at: now };
    await audit(tx, { actor: user, action: AuditAction.login, client: input.client, at: now, traits: { provider } });
    return { user, identities, issued };
  }));

  if (result === 'duplicate') {
    if (autoconfirm) throw new ApiError(400, ErrorCode.user_already_exists, Messages.userAlreadyRegistered);
    return { kind: 'user', body: fabricatedUser(contactOf, aud, config.jwt.defaultGroupName, input.data, now) };
  }
  if (!result.issued) return { kind: 'user', body: serializeUser(result.user, result.identities) };
  const { session, amr, refreshToken } = result.issued;
  return { kind: 'session', body: await tokenResponse(deps, { user: result.user, identities: result.identities, session, amr, refreshToken }) };
}

/** Runs a sign-up transaction; a concurrent sign-up of the same address that won the unique index
 * makes this one a duplicate (answered like any other duplicate), never a 500. */
async function orDuplicate<T>(work: () => Promise<T>): Promise<T | 'duplicate'> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) return 'duplicate';
    throw err;
  }
}

/** The enumeration-protected answer to a duplicate sign-up: a fresh id, no identities, no session. */
function fabricatedUser(
  contact: { email?: string; phone?: string },
  aud: string,
  role: string,
  data: Record<string, unknown>,
  now: Date,
): UserJson {
  const provider = contact.email ? 'email' : 'phone';
  const fake: UserRow = {
    id: randomUUID(), aud, role, email: contact.email ?? null, email_confirmed_at: null, invited_at: null, phone: contact.phone ?? null, phone_confirmed_at: null,
    confirmation_sent_at: now, confirmed_at: null, recovery_sent_at: null, email_change: null, email_change_sent_at: null,
    phone_change: null, phone_change_sent_at: null, reauthentication_sent_at: null, last_sign_in_at: null,
    raw_app_meta_data: { provider, providers: [provider] }, raw_user_meta_data: data, created_at: now,
    updated_at: now, banned_until: null, deleted_at: null, is_anonymous: false, is_sso_user: false,
  };
  return serializeUser(fake, []);
}
