// This server as a WebAuthn relying party (WEBAUTHN_RP_ID / _RP_DISPLAY_NAME / _RP_ORIGINS): the registration and
// authentication ceremonies of the WebAuthn MFA factor and of passkeys, done by @simplewebauthn/server (CBOR, COSE,
// attestation and signature checks). Everything it returns is base64url, as the JSON forms of WebAuthn Level 3.
import {
  generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse,
  type AuthenticationResponseJSON, type PublicKeyCredentialCreationOptionsJSON, type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { WebAuthnConfig } from '@keyzone/config';
import type { StoredWebAuthnCredential } from '../../queries/mfa';

/** How long a browser may take over a ceremony (the options' timeout; the challenge lives as long). */
export const CEREMONY_TIMEOUT_SECONDS = 300;

/** A ceremony the relying party refused: the message says why (origin, RP ID, challenge, signature, counter). */
export class CeremonyError extends Error {}

export interface RegisteredCredential extends StoredWebAuthnCredential {
  aaguid: string;
  backupEligible: boolean;
  backedUp: boolean;
  userVerified: boolean;
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

export class RelyingParty {
  constructor(private readonly config: WebAuthnConfig) {}

  /**
   * The origins a ceremony may come from. A client may name the relying party it uses (auth-js sends rpId and
   * rpOrigins): accepted only within the configured ones, so a page can narrow the list but never widen it.
   */
  origins(requested?: { rpId?: string; rpOrigins?: string[] }): string[] {
    if (requested?.rpId !== undefined && requested.rpId !== this.config.rpId) {
      throw new CeremonyError(`rpId ${requested.rpId} is not this server's relying party (${this.config.rpId})`);
    }
    const origins = (requested?.rpOrigins ?? []).map((o) => o.replace(/\/$/, ''));
    const foreign = origins.find((o) => !this.config.rpOrigins.includes(o));
    if (foreign) throw new CeremonyError(`origin ${foreign} is not one of WEBAUTHN_RP_ORIGINS`);
    return origins.length > 0 ? origins : this.config.rpOrigins;
  }

  async registrationOptions(input: {
    userId: string;
    userName: string;
    exclude: StoredWebAuthnCredential[];
    /** Passkeys must be discoverable (the sign-in names no user); a second factor need not be. */
    discoverable: boolean;
  }): Promise<PublicKeyCredentialCreationOptionsJSON> {
    return generateRegistrationOptions({
      rpName: this.config.rpDisplayName,
      rpID: this.config.rpId,
      userID: Buffer.from(input.userId, 'utf8'),
      userName: input.userName,
      userDisplayName: input.userName,
      timeout: CEREMONY_TIMEOUT_SECONDS * 1000,
      attestationType: 'none',
      excludeCredentials: input.exclude.map((c) => ({ id: c.id, transports: c.transports })),
      authenticatorSelection: {
        residentKey: input.discoverable ? 'required' : 'preferred',
        requireResidentKey: input.discoverable,
        userVerification: 'preferred',
      },
      supportedAlgorithmIDs: [-7, -8, -257],
    });
  }

  async verifyRegistration(input: { response: RegistrationResponseJSON; challenge: string; origins: string[] }): Promise<RegisteredCredential> {
    let result;
    try {
      result = await verifyRegistrationResponse({
        response: input.response,
        expectedChallenge: input.challenge,
        expectedOrigin: input.origins,
        expectedRPID: this.config.rpId,
        requireUserPresence: true,
        requireUserVerification: false,
      });
    } catch (err) {
      throw new CeremonyError((err as Error).message);
    }
    if (!result.verified) throw new CeremonyError('the registration did not verify');
    const info = result.registrationInfo;
    return {
      id: info.credential.id,
      public_key: b64url(info.credential.publicKey),
      sign_count: info.credential.counter,
      transports: info.credential.transports ?? [],
      aaguid: info.aaguid,
      backupEligible: info.credentialDeviceType === 'multiDevice',
      backedUp: info.credentialBackedUp,
      userVerified: info.userVerified,
    };
  }

  /** With `allow`, only those credentials (a second factor); without, any discoverable one (passkey sign-in). */
  async authenticationOptions(allow?: StoredWebAuthnCredential[]): Promise<PublicKeyCredentialRequestOptionsJSON> {
    return generateAuthenticationOptions({
      rpID: this.config.rpId,
      timeout: CEREMONY_TIMEOUT_SECONDS * 1000,
      userVerification: 'preferred',
      ...(allow ? { allowCredentials: allow.map((c) => ({ id: c.id, transports: c.transports })) } : {}),
    });
  }

  /** Checks origin, RP ID hash, challenge, user presence, signature and that the counter went up; the new counter. */
  async verifyAuthentication(input: {
    response: AuthenticationResponseJSON;
    challenge: string;
    origins: string[];
    credential: StoredWebAuthnCredential;
  }): Promise<{ signCount: number; userVerified: boolean }> {
    if (input.response.id !== input.credential.id) throw new CeremonyError('the assertion is from another credential');
    let result;
    try {
      result = await verifyAuthenticationResponse({
        response: input.response,
        expectedChallenge: input.challenge,
        expectedOrigin: input.origins,
        expectedRPID: this.config.rpId,
        credential: {
          id: input.credential.id,
          publicKey: Buffer.from(input.credential.public_key, 'base64url'),
          counter: input.credential.sign_count,
          transports: input.credential.transports as never,
        },
        requireUserVerification: false,
      });
    } catch (err) {
      throw new CeremonyError((err as Error).message);
    }
    if (!result.verified) throw new CeremonyError('the assertion did not verify');
    return { signCount: result.authenticationInfo.newCounter, userVerified: result.authenticationInfo.userVerified };
  }
}

/** One relying party per config object (the config is frozen and lives as long as the app). */
const parties = new WeakMap<WebAuthnConfig, RelyingParty>();
export function relyingPartyFor(config: WebAuthnConfig): RelyingParty {
  let party = parties.get(config);
  if (!party) {
    party = new RelyingParty(config);
    parties.set(config, party);
  }
  return party;
}
