// The email-sending entry points: passwordless sign-in (/otp, /magiclink), /recover, /resend,
// /invite and /reauthenticate (reference §1.4.4-§1.4.8, §1.4.11). Each stores its token and sends
// its mail in one transaction.
import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../../deps';
import { sendReauthenticationSms } from '../phone/flows';
import { ApiError, ErrorCode, Messages } from '../../errors';
import type { UserRow } from '../../queries/columns';
import { markEmailSent } from '../../queries/email-send-log';
import { setInvitedAt } from '../../queries/email-users';
import { findIdentitiesByUserId } from '../../queries/identities';
import { findUserByEmail, findUserById, mergeUserMetadata } from '../../queries/users';
import { serializeUser, type UserJson } from '../../serialize';
import { normalizeEmail } from '../sessions/accounts';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { sendEmailChangeTokens } from './change';
import { takeAddressBudget, takeEmailBudgetWithoutMail } from './budgets';
import { createEmailUser, randomPasswordHash } from './users';
import { sendEmailToken } from './tokens';
import type { PkceParams } from '../external/pkce';
import { approveNewUser } from '../hooks/before-user-created';

export interface EmailRequest {
  email: string;
  /** Already validated against the allow-list. */
  redirectTo: string;
  pkce: PkceParams | undefined;
  client: ClientInfo;
}

function requireEmailProvider(deps: Pick<Deps, 'config'>): void {
  if (!deps.config.external.email.enabled) throw new ApiError(422, ErrorCode.email_provider_disabled, 'Email logins are disabled');
}

/**
 * POST /otp and /magiclink with an email. Unknown address: created (unless create_user is false →
 * 422 otp_disabled) and sent a sign-up confirmation; unconfirmed: the confirmation again;
 * confirmed: a magic link. With MAILER_AUTOCONFIRM a new user is created confirmed and gets a magic link.
 */
export async function sendPasswordlessEmail(
  deps: Deps,
  input: EmailRequest & { createUser: boolean; data: Record<string, unknown> },
): Promise<void> {
  // Two first requests for one new address race to create the user: the loser runs again and
  // finds the winner's user.
  await retryOnceOnUniqueViolation(() => passwordless(deps, input));
}

async function retryOnceOnUniqueViolation<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return operation();
  }
}

async function passwordless(deps: Deps, input: EmailRequest & { createUser: boolean; data: Record<string, unknown> }): Promise<void> {
  requireEmailProvider(deps);
  const email = normalizeEmail(input.email);
  const now = deps.clock.now();
  // A new user gets a random password; the hash is made for every address, so the answer's time does not tell
  // a known address (9 ms) from an unknown one (80 ms of bcrypt) (issue 26).
  const newUserHash = await randomPasswordHash(deps.config.password.bcryptCost);
  const existing = await findUserByEmail(deps.db, email, deps.config.jwt.aud);
  if (!existing) {
    if (!input.createUser) throw new ApiError(422, ErrorCode.otp_disabled, 'Signups not allowed for otp');
    if (deps.config.disableSignup) throw new ApiError(422, ErrorCode.signup_disabled, Messages.signupsDisabled);
  }
  await deps.db.transaction().execute(async (tx) => {
    let user: UserRow;
    if (existing) {
      user = existing;
    } else {
      user = await createEmailUser(deps, tx, { email, data: input.data, confirmed: deps.config.mailer.autoconfirm, randomPassword: true, passwordHash: newUserHash, now });
      await approveNewUser(deps, user, input.client);
      await audit(tx, { actor: user, action: AuditAction.userSignedUp, client: input.client, at: now, traits: { provider: 'email' } });
    }
    const confirmed = user.email_confirmed_at !== null || (!existing && deps.config.mailer.autoconfirm);
    const action = confirmed ? 'magiclink' : 'signup';
    await sendEmailToken(deps, tx, { target: { userId: user.id, email }, action, redirectTo: input.redirectTo, pkce: input.pkce, client: input.client });
    await audit(tx, {
      actor: user,
      action: confirmed ? AuditAction.userRecoveryRequested : AuditAction.userConfirmationRequested,
      client: input.client,
      at: now,
    });
  });
}

/**
 * POST /recover. The request does the same work whatever the address: the budgets (per client, per
 * address, global, and SMTP_MAX_FREQUENCY from the send log) and a queued job, in one transaction.
 * It never looks the address up, so neither its answer (200 or the same 429) nor its time tells
 * whether there is an account. The job (runRecoveryJob, after the answer) issues the token and
 * queues the mail, or does nothing for an unknown address.
 */
export async function sendRecoveryEmail(deps: Deps, input: EmailRequest): Promise<void> {
  requireEmailProvider(deps);
  const mailer = deps.mailer;
  if (!mailer) throw new ApiError(500, ErrorCode.unexpected_failure, 'Email sending is not configured');
  const email = normalizeEmail(input.email);
  await deps.db.transaction().execute(async (tx) => {
    await takeAddressBudget(deps, tx, { kind: 'recovery', recipient: email, client: input.client.limitKey, minIntervalSeconds: deps.config.smtp.maxFrequency });
    const job: RecoveryJob = { email, redirectTo: input.redirectTo, pkce: input.pkce ?? null, client: input.client };
    await mailer.queueJob(tx, { name: RECOVERY_JOB, recipient: email, payload: { ...job } });
  });
}

export const RECOVERY_JOB = 'recovery';

interface RecoveryJob {
  email: string;
  redirectTo: string;
  pkce: PkceParams | null;
  client: ClientInfo;
}

/** The deferred half of POST /recover, run by the outbox worker. */
export async function runRecoveryJob(deps: Deps, payload: Record<string, unknown>): Promise<void> {
  const job = payload as unknown as RecoveryJob;
  const user = await findUserByEmail(deps.db, job.email, deps.config.jwt.aud);
  if (!user) return;
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (tx) => {
    await markEmailSent(tx, { recipient: job.email, kind: 'recovery', userId: user.id });
    await sendEmailToken(deps, tx, {
      target: { userId: user.id, email: job.email },
      action: 'recovery',
      redirectTo: job.redirectTo,
      pkce: job.pkce ?? undefined,
      skipFrequency: true,
      budgetTaken: true,
    });
    await audit(tx, { actor: user, action: AuditAction.userRecoveryRequested, client: job.client, at: now });
  });
}

/**
 * POST /resend for email types: nothing pending (unknown, confirmed, no change) → no mail, but the
 * budgets are taken as for a send, so the answer does not tell whether something was pending.
 */
export async function resendEmail(deps: Deps, input: EmailRequest & { type: 'signup' | 'email_change' }): Promise<void> {
  const email = normalizeEmail(input.email);
  const user = await findUserByEmail(deps.db, email, deps.config.jwt.aud);
  const nothingPending = () =>
    takeEmailBudgetWithoutMail(deps, {
      kind: input.type === 'signup' ? 'confirmation' : 'emailChange',
      recipient: email,
      client: input.client.limitKey,
      minIntervalSeconds: deps.config.smtp.maxFrequency,
    });
  if (!user) return nothingPending();
  if (input.type === 'signup') {
    if (user.email_confirmed_at !== null) return nothingPending();
    await deps.db.transaction().execute(async (tx) => {
      await sendEmailToken(deps, tx, { target: { userId: user.id, email }, action: 'signup', redirectTo: input.redirectTo, pkce: input.pkce, client: input.client });
    });
    return;
  }
  if (!user.email_change) return nothingPending();
  const newEmail = user.email_change;
  await deps.db.transaction().execute(async (tx) => {
    await sendEmailChangeTokens(deps, tx, { user, newEmail, redirectTo: input.redirectTo, pkce: input.pkce });
  });
}

/** POST /invite (admin): a confirmed user with that email → 422 email_exists. */
export interface InviteInput {
  email: string;
  data: Record<string, unknown>;
  redirectTo: string;
  client: ClientInfo;
  actor: { id: string; username: string };
}

export async function inviteUser(deps: Deps, input: InviteInput): Promise<UserJson> {
  return retryOnceOnUniqueViolation(() => invite(deps, input));
}

async function invite(deps: Deps, input: InviteInput): Promise<UserJson> {
  requireEmailProvider(deps);
  const email = normalizeEmail(input.email);
  const now = deps.clock.now();
  const existing = await findUserByEmail(deps.db, email, deps.config.jwt.aud);
  if (existing && existing.email_confirmed_at !== null) {
    throw new ApiError(422, ErrorCode.email_exists, 'A user with this email address has already been registered');
  }
  const userId = await deps.db.transaction().execute(async (tx) => {
    let user: UserRow;
    if (existing) {
      user = existing;
      if (Object.keys(input.data).length > 0) await mergeUserMetadata(tx, user.id, input.data, now);
    } else {
      user = await createEmailUser(deps, tx, { email, data: input.data, confirmed: false, randomPassword: false, now });
    }
    await setInvitedAt(tx, user.id, now);
    await sendEmailToken(deps, tx, { target: { userId: user.id, email }, action: 'invite', redirectTo: input.redirectTo, skipFrequency: true });
    await audit(tx, { actor: input.actor, action: AuditAction.userInvited, client: input.client, at: now, traits: { user_id: user.id, user_email: email } });
    return user.id;
  });
  const user = (await findUserById(deps.db, userId)) as UserRow;
  return serializeUser(user, await findIdentitiesByUserId(deps.db, userId));
}

/** GET /reauthenticate: a nonce by email to a confirmed address, by SMS for a user who has only a phone. */
export async function sendReauthenticationNonce(deps: Deps, input: { user: UserRow; client: ClientInfo }): Promise<void> {
  const { user } = input;
  if (!user.email) {
    if (!user.phone) throw new ApiError(400, ErrorCode.validation_failed, 'Reauthentication requires the user to have an email or a phone number');
    const now = deps.clock.now();
    await deps.db.transaction().execute(async (tx) => {
      await sendReauthenticationSms(deps, tx, user);
      await audit(tx, { actor: user, action: AuditAction.userReauthenticateRequested, client: input.client, at: now });
    });
    return;
  }
  if (user.email_confirmed_at === null) throw new ApiError(422, ErrorCode.email_not_confirmed, 'Please verify your email first.');
  const email = user.email;
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (tx) => {
    await sendEmailToken(deps, tx, { target: { userId: user.id, email }, action: 'reauthentication', redirectTo: deps.config.siteUrl, client: input.client });
    await audit(tx, { actor: user, action: AuditAction.userReauthenticateRequested, client: input.client, at: now });
  });
}
