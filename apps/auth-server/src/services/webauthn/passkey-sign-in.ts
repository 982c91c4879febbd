// Passkey sign-in (issue 31, a Keyzone extension of GoTrue's API, the routes auth-js 2.109 calls): options for any
// discoverable credential of this relying party, then the assertion names its credential and so its user. The
// session is AAL1 with `amr` passkey, or AAL2 when the authenticator verified the user (PIN or biometrics): a
// passkey is then something the user has and something they know or are, bound to this origin, which is what
// AAL2 asks of a second factor.
import { randomUUID } from 'node:crypto';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode, Messages } from '../../errors';
import { findIdentitiesByUserId } from '../../queries/identities';
import { bindSessionToPasskey, findPasskeyByCredentialIdForUpdate, insertWebauthnChallenge, recordPasskeyUse, storedCredential } from '../../queries/passkeys';
import { findUserById, setLastSignIn } from '../../queries/users';
import type { TokenResponseJson } from '../../serialize';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { isBanned } from '../sessions/accounts';
import { tokenResponse } from '../sessions/access-token';
import { createSession } from '../sessions/sessions';
import { assertPasskeysEnabled, PASSKEY_AMR, takeChallenge } from './passkeys';
import { CEREMONY_TIMEOUT_SECONDS, CeremonyError, relyingPartyFor } from './relying-party';

/** POST /passkeys/authentication/options */
export async function startPasskeySignIn(
  deps: Pick<Deps, 'db' | 'config' | 'clock'>,
): Promise<{ challenge_id: string; options: PublicKeyCredentialRequestOptionsJSON; expires_at: number }> {
  assertPasskeysEnabled(deps);
  const options = await relyingPartyFor(deps.config.webauthn).authenticationOptions();
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + CEREMONY_TIMEOUT_SECONDS * 1000);
  const id = randomUUID();
  await insertWebauthnChallenge(deps.db, { id, userId: null, kind: 'authentication', challenge: options.challenge, at: now, expiresAt });
  return { challenge_id: id, options, expires_at: Math.floor(expiresAt.getTime() / 1000) };
}

/**
 * One answer for every assertion that does not sign in (an unknown credential, another key's signature, a counter
 * that went back, another origin, a removed user), so the route tells no one which credential IDs exist or what
 * their counters are (issue 39); the reason goes to the server log only.
 */
export const PASSKEY_SIGN_IN_REFUSED = 'Passkey verification failed';
const invalid = () => new ApiError(400, ErrorCode.webauthn_verification_failed, PASSKEY_SIGN_IN_REFUSED);

/** POST /passkeys/authentication/verify {challenge_id, credential}: the usual token response. */
export async function finishPasskeySignIn(
  deps: Pick<Deps, 'db' | 'config' | 'clock' | 'jwt' | 'log'>,
  input: { challengeId: string; credential: { id?: unknown } & Record<string, unknown>; client: ClientInfo },
): Promise<TokenResponseJson> {
  assertPasskeysEnabled(deps);
  const challenge = await takeChallenge(deps, input.challengeId, 'authentication');
  const credentialId = typeof input.credential.id === 'string' ? input.credential.id : '';
  const party = relyingPartyFor(deps.config.webauthn);
  const now = deps.clock.now();
  const result = await deps.db.transaction().execute(async (tx) => {
    const passkey = credentialId ? await findPasskeyByCredentialIdForUpdate(tx, credentialId) : undefined;
    if (!passkey) {
      deps.log.info({ reason: 'unknown credential' }, 'passkey sign-in refused');
      throw invalid();
    }
    const checked = await party.verifyAuthentication({
      response: input.credential as never, challenge: challenge.challenge, origins: party.origins(), credential: storedCredential(passkey),
    }).catch((err: unknown) => {
      if (!(err instanceof CeremonyError)) throw err;
      deps.log.info({ passkey_id: passkey.id, reason: err.message }, 'passkey sign-in refused');
      throw invalid();
    });
    const user = await findUserById(tx, passkey.user_id);
    if (!user) {
      deps.log.info({ passkey_id: passkey.id, reason: 'the user is gone' }, 'passkey sign-in refused');
      throw invalid();
    }
    if (isBanned(user, now)) throw new ApiError(400, ErrorCode.user_banned, Messages.userBanned);
    await recordPasskeyUse(tx, passkey.id, checked.signCount, now);
    const issued = await createSession(tx, { user, method: PASSKEY_AMR, client: input.client, at: now });
    const aal = checked.userVerified ? 'aal2' : 'aal1';
    await bindSessionToPasskey(tx, { sessionId: issued.session.id, passkeyId: passkey.id, aal, at: now });
    issued.session = { ...issued.session, aal };
    await setLastSignIn(tx, user.id, now);
    await audit(tx, { actor: user, action: AuditAction.login, client: input.client, at: now, traits: { provider: 'passkey', passkey_id: passkey.id } });
    return { user: { ...user, last_sign_in_at: now }, issued };
  });
  return tokenResponse(deps, {
    user: result.user,
    identities: await findIdentitiesByUserId(deps.db, result.user.id),
    session: result.issued.session,
    amr: result.issued.amr,
    refreshToken: result.issued.refreshToken,
  });
}
