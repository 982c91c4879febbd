// Passkeys (issue 31, PASSKEY_ENABLED; the routes auth-js 2.109's passkey API calls): a signed-in user registers
// discoverable WebAuthn credentials, lists, renames and removes them; an admin lists and removes a user's. A passkey
// counts as a verified factor: registering one when the account already has a factor or passkey, and removing one,
// need an AAL2 session, and removing one ends the sessions it signed in.
import { randomUUID } from 'node:crypto';
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import { findFactorsByUserId } from '../../queries/mfa';
import {
  countPasskeys, deletePasskey, deleteSessionsOfPasskey, findPasskeyForUpdate, insertPasskey, insertWebauthnChallenge, listPasskeys, renamePasskey, storedCredential,
  takeWebauthnChallenge, type PasskeyRow,
} from '../../queries/passkeys';
import { findUserById, type Executor } from '../../queries/users';
import { audit, AuditAction, type AuditActor } from '../platform/audit';
import type { ClientInfo, SignedInCaller } from '../platform/context';
import { dropLoneRecoveryCodes } from '../mfa/recovery-codes';
import { CEREMONY_TIMEOUT_SECONDS, CeremonyError, relyingPartyFor } from './relying-party';
import { isUuid } from '../../uuid';

export const PASSKEY_AMR = 'passkey';

export interface PasskeyJson {
  id: string;
  friendly_name?: string;
  created_at: string;
  last_used_at?: string;
}

export function passkeyJson(row: PasskeyRow): PasskeyJson {
  return {
    id: row.id,
    ...(row.friendly_name ? { friendly_name: row.friendly_name } : {}),
    created_at: new Date(row.created_at).toISOString(),
    ...(row.last_used_at ? { last_used_at: new Date(row.last_used_at).toISOString() } : {}),
  };
}

export function assertPasskeysEnabled(deps: Pick<Deps, 'config'>): void {
  if (!deps.config.webauthn.passkeyEnabled) throw new ApiError(404, ErrorCode.passkey_disabled, 'Passkeys are disabled');
}

const notFound = () => new ApiError(404, ErrorCode.webauthn_credential_not_found, 'Passkey not found');

/** A user whose account already has a verified factor or a passkey changes its passkeys only from an AAL2 session. */
async function requireAal2IfSecured(deps: Pick<Deps, 'db'>, caller: SignedInCaller): Promise<void> {
  if (caller.session?.aal === 'aal2') return;
  const factors = await findFactorsByUserId(deps.db, caller.user.id);
  if (factors.some((f) => f.status === 'verified') || (await countPasskeys(deps.db, caller.user.id)) > 0) {
    throw new ApiError(403, ErrorCode.insufficient_aal, 'AAL2 session is required to change the passkeys of an account with MFA or passkeys');
  }
}

/** POST /passkeys/registration/options */
export async function startPasskeyRegistration(
  deps: Pick<Deps, 'db' | 'config' | 'clock'>,
  caller: SignedInCaller,
): Promise<{ challenge_id: string; options: PublicKeyCredentialCreationOptionsJSON; expires_at: number }> {
  assertPasskeysEnabled(deps);
  if (caller.user.is_anonymous) throw new ApiError(403, ErrorCode.no_authorization, 'Anonymous users cannot register passkeys');
  await requireAal2IfSecured(deps, caller);
  const existing = await listPasskeys(deps.db, caller.user.id);
  if (existing.length >= deps.config.mfa.maxEnrolledFactors) {
    throw new ApiError(422, ErrorCode.too_many_passkeys, `At most ${deps.config.mfa.maxEnrolledFactors} passkeys per user; remove one first`);
  }
  const options = await relyingPartyFor(deps.config.webauthn).registrationOptions({
    userId: caller.user.id, userName: caller.user.email || caller.user.phone || caller.user.id, exclude: existing.map(storedCredential), discoverable: true,
  });
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + CEREMONY_TIMEOUT_SECONDS * 1000);
  const id = randomUUID();
  await insertWebauthnChallenge(deps.db, { id, userId: caller.user.id, kind: 'registration', challenge: options.challenge, at: now, expiresAt });
  return { challenge_id: id, options, expires_at: Math.floor(expiresAt.getTime() / 1000) };
}

/** The challenge of a ceremony, used up by this call whatever its outcome. */
export async function takeChallenge(
  deps: Pick<Deps, 'db' | 'clock'>,
  challengeId: string,
  kind: 'registration' | 'authentication',
): Promise<{ user_id: string | null; challenge: string }> {
  const row = isUuid(challengeId) ? await takeWebauthnChallenge(deps.db, challengeId, kind) : undefined;
  if (!row) throw new ApiError(404, ErrorCode.webauthn_challenge_not_found, 'WebAuthn challenge not found; start again');
  if (new Date(row.expires_at).getTime() <= deps.clock.now().getTime()) {
    throw new ApiError(422, ErrorCode.webauthn_challenge_expired, 'WebAuthn challenge has expired; start again');
  }
  return row;
}

/** A registration the relying party refused: the user's own authenticator, so the reason is theirs to read. */
const refused = (err: unknown): never => {
  if (err instanceof CeremonyError) throw new ApiError(400, ErrorCode.webauthn_verification_failed, `Passkey verification failed: ${err.message}`);
  throw err;
};

/** POST /passkeys/registration/verify {challenge_id, credential} */
export async function finishPasskeyRegistration(
  deps: Pick<Deps, 'db' | 'config' | 'clock'>,
  caller: SignedInCaller,
  input: { challengeId: string; credential: unknown },
): Promise<PasskeyJson> {
  assertPasskeysEnabled(deps);
  const challenge = await takeChallenge(deps, input.challengeId, 'registration');
  if (challenge.user_id !== caller.user.id) throw new ApiError(404, ErrorCode.webauthn_challenge_not_found, 'WebAuthn challenge not found; start again');
  const party = relyingPartyFor(deps.config.webauthn);
  const registered = await party.verifyRegistration({ response: input.credential as never, challenge: challenge.challenge, origins: party.origins() })
    .catch(refused);
  const now = deps.clock.now();
  const row = await deps.db.transaction().execute(async (tx) => {
    await tx.selectFrom('auth.users').select('id').where('id', '=', caller.user.id).forUpdate().execute();
    if ((await countPasskeys(tx, caller.user.id)) >= deps.config.mfa.maxEnrolledFactors) {
      throw new ApiError(422, ErrorCode.too_many_passkeys, `At most ${deps.config.mfa.maxEnrolledFactors} passkeys per user; remove one first`);
    }
    const inserted = await insertPasskey(tx, {
      id: randomUUID(), userId: caller.user.id, credential: registered, aaguid: registered.aaguid, backupEligible: registered.backupEligible,
      backedUp: registered.backedUp, friendlyName: null, at: now,
    });
    await audit(tx, { actor: caller.user, action: AuditAction.userModified, client: caller.client, at: now, traits: { passkey_id: inserted.id, action: 'passkey_registered' } });
    return inserted;
  }).catch((err: unknown) => {
    if (isUniqueViolation(err)) throw new ApiError(422, ErrorCode.webauthn_credential_exists, 'This passkey is already registered');
    throw err;
  });
  return passkeyJson(row);
}

export async function listOwnPasskeys(deps: Pick<Deps, 'db' | 'config'>, userId: string): Promise<PasskeyJson[]> {
  assertPasskeysEnabled(deps);
  return (await listPasskeys(deps.db, userId)).map(passkeyJson);
}

export async function renameOwnPasskey(
  deps: Pick<Deps, 'db' | 'config' | 'clock'>,
  caller: SignedInCaller,
  input: { id: string; friendlyName: string | undefined },
): Promise<PasskeyJson> {
  assertPasskeysEnabled(deps);
  if (!isUuid(input.id)) throw notFound();
  return deps.db.transaction().execute(async (tx) => {
    const row = await findPasskeyForUpdate(tx, caller.user.id, input.id);
    if (!row) throw notFound();
    return passkeyJson(await renamePasskey(tx, row.id, input.friendlyName?.trim() || null, deps.clock.now()));
  });
}

async function removePasskey(
  deps: Pick<Deps, 'db' | 'clock'>,
  userId: string,
  id: string,
  onRemoved?: (tx: Executor, row: PasskeyRow) => Promise<void>,
): Promise<PasskeyJson> {
  if (!isUuid(id)) throw notFound();
  return deps.db.transaction().execute(async (tx) => {
    const row = await findPasskeyForUpdate(tx, userId, id);
    if (!row) throw notFound();
    await deleteSessionsOfPasskey(tx, row.id);
    await deletePasskey(tx, row.id);
    await dropLoneRecoveryCodes(tx, userId, deps.clock.now());
    await onRemoved?.(tx, row);
    return passkeyJson(row);
  });
}

/** DELETE /passkeys/<id>: from an AAL2 session when the account has factors or passkeys (it does: this one). */
export async function deleteOwnPasskey(deps: Pick<Deps, 'db' | 'config' | 'clock'>, caller: SignedInCaller, id: string): Promise<PasskeyJson> {
  assertPasskeysEnabled(deps);
  if (caller.session?.aal !== 'aal2') throw new ApiError(403, ErrorCode.insufficient_aal, 'AAL2 session is required to remove a passkey');
  return removePasskey(deps, caller.user.id, id, (tx, row) =>
    audit(tx, { actor: caller.user, action: AuditAction.userModified, client: caller.client, at: deps.clock.now(), traits: { passkey_id: row.id, action: 'passkey_deleted' } }));
}

export async function listPasskeysForAdmin(deps: Pick<Deps, 'db' | 'config'>, userId: string): Promise<PasskeyJson[]> {
  assertPasskeysEnabled(deps);
  if (!isUuid(userId) || !(await findUserById(deps.db, userId))) throw new ApiError(404, ErrorCode.user_not_found, 'User not found');
  return (await listPasskeys(deps.db, userId)).map(passkeyJson);
}

/**
 * DELETE /admin/users/<id>/passkeys/<passkey_id>: a lost or stolen device, removed by an admin. Audited under the
 * admin (GoTrue's passkey_admin.go does too), with the user's id in the traits so the user's trail shows it.
 */
export async function deletePasskeyForAdmin(
  deps: Pick<Deps, 'db' | 'config' | 'clock'>,
  input: { userId: string; passkeyId: string; actor: AuditActor; client: ClientInfo },
): Promise<void> {
  assertPasskeysEnabled(deps);
  if (!isUuid(input.userId)) throw new ApiError(404, ErrorCode.user_not_found, 'User not found');
  await removePasskey(deps, input.userId, input.passkeyId, (tx, row) => audit(tx, {
    actor: input.actor, action: AuditAction.userModified, client: input.client, at: deps.clock.now(),
    traits: { user_id: input.userId, passkey_id: row.id, action: 'passkey_deleted' },
  }));
}
