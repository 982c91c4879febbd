// The WebAuthn MFA factor (GoTrue's, as auth-js's mfa.webauthn drives it): a challenge of an unverified factor asks
// the browser to create a credential ("create"), one of a verified factor to sign with it ("request"); the answer is
// checked by the relying party and, for "create", becomes the factor's credential.
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import type { UserRow } from '../../queries/columns';
import type { ChallengeRow, FactorRow, StoredWebAuthnCredential, WebAuthnSessionData } from '../../queries/mfa';
import { CeremonyError, relyingPartyFor } from '../webauthn/relying-party';

export interface RequestedRelyingParty {
  rpId?: string;
  rpOrigins?: string[];
}

export type WebAuthnChallengeJson =
  | { type: 'create'; credential_options: { publicKey: PublicKeyCredentialCreationOptionsJSON } }
  | { type: 'request'; credential_options: { publicKey: PublicKeyCredentialRequestOptionsJSON } };

export interface WebAuthnAnswer extends RequestedRelyingParty {
  type: 'create' | 'request';
  credential_response: unknown;
}

function checked(deps: Pick<Deps, 'config'>, requested: RequestedRelyingParty | undefined): string[] {
  try {
    return relyingPartyFor(deps.config.webauthn).origins(requested);
  } catch (err) {
    throw new ApiError(400, ErrorCode.validation_failed, (err as Error).message);
  }
}

/** The options a challenge answers with, and what the challenge row keeps to check the answer. */
export async function webauthnChallenge(
  deps: Pick<Deps, 'config'>,
  factor: FactorRow,
  user: UserRow,
  requested: RequestedRelyingParty | undefined,
): Promise<{ session: WebAuthnSessionData; json: WebAuthnChallengeJson }> {
  checked(deps, requested);
  const party = relyingPartyFor(deps.config.webauthn);
  if (factor.status === 'verified' && factor.web_authn_credential) {
    const publicKey = await party.authenticationOptions([factor.web_authn_credential]);
    return { session: { type: 'request', challenge: publicKey.challenge }, json: { type: 'request', credential_options: { publicKey } } };
  }
  const publicKey = await party.registrationOptions({
    userId: user.id, userName: user.email || user.phone || user.id, exclude: [], discoverable: false,
  });
  return { session: { type: 'create', challenge: publicKey.challenge }, json: { type: 'create', credential_options: { publicKey } } };
}

export type WebAuthnVerdict =
  | { valid: true; credential: StoredWebAuthnCredential; aaguid?: string }
  | { valid: false; reason: string };

/** Checks a verify's answer against its challenge; never throws for a wrong answer (the caller counts it). */
export async function verifyWebauthnAnswer(
  deps: Pick<Deps, 'config' | 'log'>,
  factor: FactorRow,
  challenge: ChallengeRow,
  answer: WebAuthnAnswer | undefined,
): Promise<WebAuthnVerdict> {
  const session = challenge.web_authn_session_data;
  if (!answer || !session) throw new ApiError(400, ErrorCode.validation_failed, 'webauthn with a credential_response is required for a WebAuthn factor');
  if (answer.type !== session.type) {
    throw new ApiError(400, ErrorCode.validation_failed, `The challenge expects a "${session.type}" response, not "${answer.type}"`);
  }
  const origins = checked(deps, answer);
  const party = relyingPartyFor(deps.config.webauthn);
  try {
    if (session.type === 'create') {
      const registered = await party.verifyRegistration({ response: answer.credential_response as never, challenge: session.challenge, origins });
      const { id, public_key, sign_count, transports } = registered;
      return { valid: true, credential: { id, public_key, sign_count, transports }, aaguid: registered.aaguid };
    }
    if (!factor.web_authn_credential) return { valid: false, reason: 'the factor has no credential' };
    const { signCount } = await party.verifyAuthentication({
      response: answer.credential_response as never, challenge: session.challenge, origins, credential: factor.web_authn_credential,
    });
    return { valid: true, credential: { ...factor.web_authn_credential, sign_count: signCount } };
  } catch (err) {
    if (!(err instanceof CeremonyError)) throw err;
    deps.log.info({ factor_id: factor.id, reason: err.message }, 'WebAuthn factor verification refused');
    return { valid: false, reason: err.message };
  }
}
