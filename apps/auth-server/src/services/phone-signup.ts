// POST /signup with {phone, password} (reference §1.4.1). With SMS_AUTOCONFIRM the answer is a
// session; otherwise the bare user. Sending the SMS code needs an SMS sender (deps.sms, its own
// issue): until one is wired, no code is sent and confirmation_sent_at stays empty, as for email
// without a mailer. Phones are stored without '+'.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps';
import { ApiError, ErrorCode, Messages } from '../errors';
import type { IdentityRow, UserRow } from '../queries/columns';
import { findIdentitiesByUserId, insertIdentity } from '../queries/identities';
import { findUserByPhone, insertUser, mergeUserMetadata, setLastSignIn } from '../queries/users';
import { serializeUser } from '../serialize';
import { tokenResponse } from './access-token';
import { fabricatedUser, orDuplicate, type SignupResult } from './accounts';
import { audit, AuditAction } from './audit';
import type { ClientInfo } from './context';
import { checkPasswordStrength, hashPassword } from './passwords';
import { AmrMethod, createSession } from './sessions';
import { normalizePhone } from './sign-in';

export async function signUpWithPhone(
  deps: Deps,
  input: { phone: string; password: string; data: Record<string, unknown>; client: ClientInfo },
): Promise<SignupResult> {
  const { config } = deps;
  if (config.disableSignup) throw new ApiError(422, ErrorCode.signup_disabled, Messages.signupsDisabled);
  if (!config.external.phone.enabled) throw new ApiError(400, ErrorCode.phone_provider_disabled, Messages.phoneSignupsDisabled);
  checkPasswordStrength(input.password, config.password);
  const phone = normalizePhone(input.phone);
  const aud = config.jwt.aud;
  const autoconfirm = config.sms.autoconfirm;
  const now = deps.clock.now();

  const existing = await findUserByPhone(deps.db, phone, aud);
  if (existing && existing.phone_confirmed_at !== null) {
    if (autoconfirm) throw new ApiError(400, ErrorCode.user_already_exists, Messages.userAlreadyRegistered);
    await audit(deps.db, { actor: existing, action: AuditAction.userRepeatedSignup, client: input.client, at: now });
    return { kind: 'user', body: fabricatedUser({ phone }, aud, config.jwt.defaultGroupName, input.data, now) };
  }

  const hash = await hashPassword(input.password, config.password.bcryptCost);
  const result = await orDuplicate(() => deps.db.transaction().execute(async (tx) => {
    let user: UserRow;
    let identities: IdentityRow[];
    if (existing) {
      user = { ...existing, raw_user_meta_data: await mergeUserMetadata(tx, existing.id, input.data, now) };
      identities = await findIdentitiesByUserId(tx, existing.id);
    } else {
      const id = randomUUID();
      user = await insertUser(tx, {
        id, aud, role: config.jwt.defaultGroupName, email: null, phone, encrypted_password: hash,
        email_confirmed_at: null, phone_confirmed_at: autoconfirm ? now : null, confirmation_sent_at: null,
        raw_app_meta_data: { provider: 'phone', providers: ['phone'] }, raw_user_meta_data: input.data,
        is_anonymous: false, created_at: now, updated_at: now,
      });
      identities = [
        await insertIdentity(tx, {
          id: randomUUID(), provider_id: id, user_id: id, provider: 'phone', last_sign_in_at: now, created_at: now, updated_at: now,
          identity_data: { sub: id, phone, email_verified: false, phone_verified: false, ...input.data },
        }),
      ];
      await audit(tx, { actor: user, action: AuditAction.userSignedUp, client: input.client, at: now, traits: { provider: 'phone' } });
    }
    if (!autoconfirm) return { user, identities, issued: undefined };
    const issued = await createSession(tx, { user, method: AmrMethod.password, client: input.client, at: now });
    await setLastSignIn(tx, user.id, now);
    await audit(tx, { actor: user, action: AuditAction.login, client: input.client, at: now, traits: { provider: 'phone' } });
    return { user: { ...user, last_sign_in_at: now }, identities, issued };
  }));

  if (result === 'duplicate') {
    if (autoconfirm) throw new ApiError(400, ErrorCode.user_already_exists, Messages.userAlreadyRegistered);
    return { kind: 'user', body: fabricatedUser({ phone }, aud, config.jwt.defaultGroupName, input.data, now) };
  }
  if (!result.issued) return { kind: 'user', body: serializeUser(result.user, result.identities) };
  const { session, amr, refreshToken } = result.issued;
  return { kind: 'session', body: await tokenResponse(deps, { user: result.user, identities: result.identities, session, amr, refreshToken }) };
}
