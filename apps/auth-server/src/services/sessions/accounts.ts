// Accounts: anonymous sign-up and the rules about users shared by the other services (banned,
// email syntax, metadata merge). Password sign-up by email or phone is in password-signup.ts.
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode, Messages } from '../../errors';
import type { UserRow } from '../../queries/columns';
import { insertUser, setLastSignIn } from '../../queries/users';
import type { TokenResponseJson } from '../../serialize';
import { tokenResponse } from './access-token';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { AmrMethod, createSession } from './sessions';
import { approveNewUser } from '../hooks/before-user-created';

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
    await approveNewUser(deps, created, input.client);
    await audit(tx, { actor: created, action: AuditAction.userSignedUp, client: input.client, at: now, traits: { provider: 'anonymous' } });
    const session = await createSession(tx, { user: created, method: AmrMethod.anonymous, client: input.client, at: now });
    await setLastSignIn(tx, created.id, now);
    return { user: { ...created, last_sign_in_at: now }, issued: session };
  });
  return tokenResponse(deps, { user, identities: [], session: issued.session, amr: issued.amr, refreshToken: issued.refreshToken });
}
