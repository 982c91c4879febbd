// Accounts: sign-up (email + password, anonymous) and the rules about users shared by the
// other services (banned, confirmed, email syntax).
import { randomUUID } from 'node:crypto';
import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../deps';
import { ApiError, ErrorCode, Messages } from '../errors';
import type { IdentityRow, UserRow } from '../queries/columns';
import { findIdentitiesByUserId, insertIdentity } from '../queries/identities';
import { findUserByEmail, insertUser, mergeUserMetadata, setLastSignIn } from '../queries/users';
import type { TokenResponseJson, UserJson } from '../serialize';
import { serializeUser } from '../serialize';
import { tokenResponse } from './access-token';
import { audit, AuditAction } from './audit';
import type { ClientInfo } from './context';
import { checkPasswordStrength, hashPassword } from './passwords';
import { AmrMethod, createSession } from './sessions';
import { sendSignupConfirmation, type ConfirmationOptions } from './signup-confirmation';

export function isBanned(user: Pick<UserRow, 'banned_until'>, now: Date): boolean {
  return user.banned_until !== null && new Date(user.banned_until).getTime() > now.getTime();
}

const EMAIL_PATTERN = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/** Trims, checks and lower-cases an email address (GoTrue's validateEmail). */
export function normalizeEmail(raw: string): string {
  const email = raw.trim();
  if (email === '') throw new ApiError(400, ErrorCode.validation_failed, 'An email address is required');
  if (email.length > 255) throw new ApiError(400, ErrorCode.validation_failed, 'An email address is too long');
  if (!EMAIL_PATTERN.test(email)) {
    throw new ApiError(400, ErrorCode.validation_failed, 'Unable to validate email address: invalid format');
  }
  return email.toLowerCase();
}

/** Merges `data` into metadata; a null value deletes the key (PUT /user semantics). */
export function mergeMetadata(current: unknown, data: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> =
    current !== null && typeof current === 'object' && !Array.isArray(current) ? { ...(current as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(data)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/** Runs a sign-up transaction; a concurrent sign-up of the same address that won the unique index
 * makes this one a duplicate (answered like any other duplicate), never a 500. */
export async function orDuplicate<T>(work: () => Promise<T>): Promise<T | 'duplicate'> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) return 'duplicate';
    throw err;
  }
}

export type SignupResult = { kind: 'session'; body: TokenResponseJson } | { kind: 'user'; body: UserJson };

export interface EmailSignupInput {
  email: string;
  password: string;
  data: Record<string, unknown>;
  client: ClientInfo;
  confirmation: ConfirmationOptions;
}

export async function signUpWithEmail(deps: Deps, input: EmailSignupInput): Promise<SignupResult> {
  const { config } = deps;
  if (config.disableSignup) throw new ApiError(422, ErrorCode.signup_disabled, Messages.signupsDisabled);
  if (!config.external.email.enabled) throw new ApiError(400, ErrorCode.email_provider_disabled, Messages.emailSignupsDisabled);
  checkPasswordStrength(input.password, config.password);
  const email = normalizeEmail(input.email);
  const aud = config.jwt.aud;
  const autoconfirm = config.mailer.autoconfirm;
  const now = deps.clock.now();

  const existing = await findUserByEmail(deps.db, email, aud);
  if (existing && existing.email_confirmed_at !== null) {
    // Issue 7 / spec Part 7: 400 with autoconfirm; otherwise a fabricated user (no enumeration).
    if (autoconfirm) throw new ApiError(400, ErrorCode.user_already_exists, Messages.userAlreadyRegistered);
    await audit(deps.db, { actor: existing, action: AuditAction.userRepeatedSignup, client: input.client, at: now });
    return { kind: 'user', body: fabricatedUser({ email }, aud, config.jwt.defaultGroupName, input.data, now) };
  }

  const hash = await hashPassword(input.password, config.password.bcryptCost);
  const result = await orDuplicate(() => deps.db.transaction().execute(async (tx) => {
    let user: UserRow;
    let identities: IdentityRow[];
    if (existing) {
      // Unconfirmed duplicate: keep the account, refresh its metadata, re-send the confirmation.
      user = { ...existing, raw_user_meta_data: await mergeUserMetadata(tx, existing.id, input.data, now) };
      identities = await findIdentitiesByUserId(tx, existing.id);
    } else {
      const id = randomUUID();
      user = await insertUser(tx, {
        id,
        aud,
        role: config.jwt.defaultGroupName,
        email,
        phone: null,
        encrypted_password: hash,
        email_confirmed_at: autoconfirm ? now : null,
        confirmation_sent_at: null,
        raw_app_meta_data: { provider: 'email', providers: ['email'] },
        raw_user_meta_data: input.data,
        is_anonymous: false,
        created_at: now,
        updated_at: now,
      });
      const identity = await insertIdentity(tx, {
        id: randomUUID(),
        provider_id: id,
        user_id: id,
        identity_data: { sub: id, email, email_verified: false, phone_verified: false, ...input.data },
        provider: 'email',
        last_sign_in_at: now,
        created_at: now,
        updated_at: now,
      });
      identities = [identity];
      await audit(tx, { actor: user, action: AuditAction.userSignedUp, client: input.client, at: now, traits: { provider: 'email' } });
    }
    if (autoconfirm) {
      const issued = await createSession(tx, { user, method: AmrMethod.password, client: input.client, at: now });
      await setLastSignIn(tx, user.id, now);
      user = { ...user, last_sign_in_at: now };
      await audit(tx, { actor: user, action: AuditAction.login, client: input.client, at: now, traits: { provider: 'email' } });
      return { user, identities, issued };
    }
    const sentAt = await sendSignupConfirmation(deps, tx, { user, client: input.client, options: input.confirmation });
    if (sentAt) user = { ...user, confirmation_sent_at: sentAt };
    return { user, identities, issued: undefined };
  }));

  if (result === 'duplicate') {
    if (autoconfirm) throw new ApiError(400, ErrorCode.user_already_exists, Messages.userAlreadyRegistered);
    return { kind: 'user', body: fabricatedUser({ email }, aud, config.jwt.defaultGroupName, input.data, now) };
  }
  if (result.issued) {
    const body = await tokenResponse(deps, {
      user: result.user,
      identities: result.identities,
      session: result.issued.session,
      amr: result.issued.amr,
      refreshToken: result.issued.refreshToken,
    });
    return { kind: 'session', body };
  }
  return { kind: 'user', body: serializeUser(result.user, result.identities) };
}

/** The enumeration-protected answer to a duplicate sign-up: a fresh id, no identities, no session. */
export function fabricatedUser(
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

export async function signInAnonymously(
  deps: Deps,
  input: { data: Record<string, unknown>; client: ClientInfo },
): Promise<TokenResponseJson> {
  const { config } = deps;
  if (config.disableSignup) throw new ApiError(422, ErrorCode.signup_disabled, Messages.signupsDisabled);
  if (!config.external.anonymousUsers.enabled) {
    throw new ApiError(422, ErrorCode.anonymous_provider_disabled, Messages.anonymousDisabled);
  }
  const now = deps.clock.now();
  const { user, issued } = await deps.db.transaction().execute(async (tx) => {
    const created = await insertUser(tx, {
      id: randomUUID(),
      aud: config.jwt.aud,
      role: config.jwt.defaultGroupName,
      email: null,
      phone: null,
      encrypted_password: '',
      email_confirmed_at: null,
      confirmation_sent_at: null,
      raw_app_meta_data: {},
      raw_user_meta_data: input.data,
      is_anonymous: true,
      created_at: now,
      updated_at: now,
    });
    await audit(tx, { actor: created, action: AuditAction.userSignedUp, client: input.client, at: now, traits: { provider: 'anonymous' } });
    const session = await createSession(tx, { user: created, method: AmrMethod.anonymous, client: input.client, at: now });
    await setLastSignIn(tx, created.id, now);
    return { user: { ...created, last_sign_in_at: now }, issued: session };
  });
  return tokenResponse(deps, { user, identities: [], session: issued.session, amr: issued.amr, refreshToken: issued.refreshToken });
}
