// Phone sign-in by SMS code (reference §1.4.4-§1.4.7): POST /otp {phone}, POST /verify {type: sms |
// phone_change}, POST /resend {type: sms | phone_change}, the phone change of PUT /user and reauthentication
// by SMS. Phones are E.164 digits without '+'. Codes go out through sms-codes.ts.
import { randomUUID } from 'node:crypto';
import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode, Messages } from '../../errors';
import type { UserRow } from '../../queries/columns';
import { recordWrongCode, type EmailTokenType } from '../../queries/email-tokens';
import { findIdentitiesByUserId, insertIdentity } from '../../queries/identities';
import { addProviderToUser, findUserById, findUserByPhone, insertUser, setLastSignIn, type Executor } from '../../queries/users';
import { applyPhoneChange, confirmPhone, findUserByPendingPhone, setPendingPhoneChange } from '../../queries/phone-users';
import type { TokenResponseJson } from '../../serialize';
import { isBanned } from '../sessions/accounts';
import { tokenResponse } from '../sessions/access-token';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { clearEmailTokens, consumeEmailToken } from '../email/one-time-tokens';
import { AmrMethod, createSession } from '../sessions/sessions';
import { normalizePhone } from '../sessions/sign-in';
import { sendSmsOtp, smsTooSoon } from './sms-codes';
import { approveNewUser } from '../hooks/before-user-created';

export type PhoneVerifyType = 'sms' | 'phone_change';
const TOKEN_TYPES: Record<PhoneVerifyType, EmailTokenType[]> = { sms: ['confirmation_token'], phone_change: ['phone_change_token'] };

/**
 * EXTERNAL_PHONE_ENABLED=false: 400 phone_provider_disabled, worded as GoTrue words it per route (/otp "Unsupported
 * phone provider", /resend "Phone logins are disabled"). /verify has no such check there: it validates the number
 * and then finds no code.
 */
export function requirePhoneProvider(deps: Pick<Deps, 'config'>, message: string = Messages.phoneSignupsDisabled): void {
  if (!deps.config.external.phone.enabled) throw new ApiError(400, ErrorCode.phone_provider_disabled, message);
}

/** POST /otp {phone}: a code to sign in with, for a new user too unless create_user is false. */
export async function sendPhoneOtp(
  deps: Deps,
  input: { phone: string; createUser: boolean; data: Record<string, unknown>; channel: 'sms' | 'whatsapp'; client: ClientInfo },
): Promise<string> {
  requirePhoneProvider(deps, 'Unsupported phone provider');
  const phone = normalizePhone(input.phone);
  const { config } = deps;
  const now = deps.clock.now();
  return deps.db.transaction().execute(async (tx) => {
    let user = await findUserByPhone(tx, phone, config.jwt.aud);
    if (!user) {
      if (!input.createUser) throw new ApiError(422, ErrorCode.otp_disabled, 'Signups not allowed for otp');
      if (config.disableSignup) throw new ApiError(422, ErrorCode.signup_disabled, Messages.signupsDisabled);
      user = await createPhoneUser(deps, tx, { phone, data: input.data, client: input.client, now });
    }
    if (isBanned(user, now)) throw new ApiError(400, ErrorCode.user_banned, Messages.userBanned);
    return sendSmsOtp(deps, tx, {
      userId: user.id, phone, type: 'confirmation_token', channel: input.channel, client: input.client.limitKey, proven: user.phone_confirmed_at !== null,
    });
  }).catch((err: unknown) => {
    // Two first /otp calls for one new number: the loser is told to wait, as for any second send.
    if (isUniqueViolation(err)) throw smsTooSoon(deps.config.sms.maxFrequency);
    throw err;
  });
}

async function createPhoneUser(
  deps: Pick<Deps, 'config' | 'db' | 'log' | 'clock'>,
  tx: Executor,
  input: { phone: string; data: Record<string, unknown>; client: ClientInfo; now: Date },
): Promise<UserRow> {
  const { config } = deps;
  const id = randomUUID();
  const user = await insertUser(tx, {
    id, aud: config.jwt.aud, role: config.jwt.defaultGroupName, email: null, phone: input.phone, encrypted_password: '',
    email_confirmed_at: null, phone_confirmed_at: null, confirmation_sent_at: null,
    raw_app_meta_data: { provider: 'phone', providers: ['phone'] }, raw_user_meta_data: input.data,
    is_anonymous: false, created_at: input.now, updated_at: input.now,
  });
  await insertIdentity(tx, {
    id: randomUUID(), provider_id: id, user_id: id, provider: 'phone', last_sign_in_at: null, created_at: input.now, updated_at: input.now,
    identity_data: { sub: id, phone: input.phone, email_verified: false, phone_verified: false, ...input.data },
  });
  await approveNewUser(deps, user, input.client);
  await audit(tx, { actor: user, action: AuditAction.userSignedUp, client: input.client, at: input.now, traits: { provider: 'phone' } });
  return user;
}

/** POST /verify {type: sms | phone_change, phone, token}: the code signs the user in. */
export async function verifyPhoneCode(
  deps: Deps,
  input: { type: PhoneVerifyType; phone: string; otp: string; client: ClientInfo },
): Promise<TokenResponseJson & { type?: string }> {
  const phone = normalizePhone(input.phone);
  const now = deps.clock.now();
  const invalid = () => new ApiError(403, ErrorCode.otp_expired, Messages.tokenExpiredOrInvalid);
  let wrongCode = false;
  const result = await deps.db.transaction().execute(async (tx) => {
    const consumed = await consumeEmailToken(tx, { proof: { phone, otp: input.otp }, types: TOKEN_TYPES[input.type], now, otpExpSeconds: deps.config.sms.otpExp });
    if (!consumed) {
      wrongCode = true;
      throw invalid();
    }
    const found = await findUserById(tx, consumed.userId);
    if (!found) throw invalid();
    if (isBanned(found, now)) throw new ApiError(403, ErrorCode.user_banned, Messages.userBanned);
    if (input.type === 'sms') {
      if (found.phone !== phone) throw invalid();
      if (!found.phone_confirmed_at) await confirmPhone(tx, found.id, now);
    } else {
      if (found.phone_change !== phone) throw invalid();
      await adoptPhone(tx, found.id, phone, now);
      await audit(tx, { actor: found, action: AuditAction.userModified, client: input.client, at: now });
    }
    await clearEmailTokens(tx, found.id);
    const user = (await findUserById(tx, found.id)) as UserRow;
    const issued = await createSession(tx, { user, method: AmrMethod.otp, client: input.client, at: now });
    await setLastSignIn(tx, user.id, now);
    await audit(tx, { actor: user, action: AuditAction.login, client: input.client, at: now, traits: { provider: 'phone' } });
    return { user: { ...user, last_sign_in_at: now }, issued };
  }).catch(async (err: unknown) => {
    // Counted after the rollback, so the count sticks: the fifth wrong code burns the number's code.
    if (wrongCode) await recordWrongCode(deps.db, { relatesTo: phone, types: TOKEN_TYPES[input.type] });
    throw err;
  });
  return tokenResponse(deps, {
    user: result.user,
    identities: await findIdentitiesByUserId(deps.db, result.user.id),
    session: result.issued.session,
    amr: result.issued.amr,
    refreshToken: result.issued.refreshToken,
  });
}

/** A confirmed phone change: the number becomes the user's phone, with a phone identity. */
async function adoptPhone(tx: Executor, userId: string, phone: string, now: Date): Promise<void> {
  await applyPhoneChange(tx, userId, phone, now).catch((err: unknown) => {
    if (isUniqueViolation(err)) throw new ApiError(422, ErrorCode.phone_exists, 'Phone number already registered by another user');
    throw err;
  });
  if ((await findIdentitiesByUserId(tx, userId)).some((i) => i.provider === 'phone')) return;
  await insertIdentity(tx, {
    id: randomUUID(), provider_id: userId, user_id: userId, provider: 'phone', last_sign_in_at: now, created_at: now, updated_at: now,
    identity_data: { sub: userId, phone, email_verified: false, phone_verified: true },
  });
  await addProviderToUser(tx, userId, 'phone', now);
}

/** POST /resend {type: sms | phone_change, phone}: a new code for a pending confirmation; {} when none is pending. */
export async function resendPhoneCode(deps: Deps, input: { type: PhoneVerifyType; phone: string; client?: string }): Promise<string | undefined> {
  requirePhoneProvider(deps, 'Phone logins are disabled');
  const phone = normalizePhone(input.phone);
  return deps.db.transaction().execute(async (tx) => {
    if (input.type === 'sms') {
      const user = await findUserByPhone(tx, phone, deps.config.jwt.aud);
      if (!user || user.phone_confirmed_at) return undefined;
      return sendSmsOtp(deps, tx, { userId: user.id, phone, type: 'confirmation_token', client: input.client, proven: false });
    }
    const user = await findUserByPendingPhone(tx, phone, deps.config.jwt.aud);
    if (!user) return undefined;
    return sendSmsOtp(deps, tx, { userId: user.id, phone, type: 'phone_change_token', client: input.client, proven: false });
  });
}

/** PUT /user {phone}: the new number confirms by code (or at once with SMS_AUTOCONFIRM). */
export async function requestPhoneChange(deps: Deps, tx: Executor, input: { user: UserRow; phone: string }): Promise<void> {
  requirePhoneProvider(deps);
  const phone = normalizePhone(input.phone);
  const now = deps.clock.now();
  if (phone === input.user.phone) return;
  const taken = await findUserByPhone(tx, phone, deps.config.jwt.aud);
  if (taken && taken.id !== input.user.id) throw new ApiError(422, ErrorCode.phone_exists, 'Phone number already registered by another user');
  await setPendingPhoneChange(tx, input.user.id, phone, now);
  if (deps.config.sms.autoconfirm) {
    await adoptPhone(tx, input.user.id, phone, now);
    return;
  }
  await sendSmsOtp(deps, tx, { userId: input.user.id, phone, type: 'phone_change_token', proven: false });
}

/** GET /reauthenticate for a user without an email address: the nonce goes by SMS. */
export async function sendReauthenticationSms(deps: Deps, tx: Executor, user: UserRow): Promise<void> {
  requirePhoneProvider(deps);
  if (!user.phone || !user.phone_confirmed_at) throw new ApiError(422, ErrorCode.phone_not_confirmed, 'Please verify your phone first.');
  await sendSmsOtp(deps, tx, { userId: user.id, phone: user.phone, type: 'reauthentication_token', proven: user.phone_confirmed_at !== null });
}
