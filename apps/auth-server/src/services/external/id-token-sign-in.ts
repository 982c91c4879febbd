// POST /token?grant_type=id_token (reference §1.4.2): native "Sign in with Google/Apple/..." hands the app an
// ID token, which is checked here against the issuer's published keys (audience = the provider's client ids,
// issuer, expiry), its nonce (the token carries SHA-256 hex of the app's raw nonce) and, when the app sends
// the access token too, its at_hash. Then the same account decision as /callback.
import { createHash } from 'node:crypto';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode, OAuthError } from '../../errors';
import { PROVIDERS } from './providers';
import { oidcProfile } from './providers/oidc-profile';
import type { ProviderClient } from './provider-client';
import { ProviderError, type ExternalProfile, type ProfileContext, type ProviderTokens } from './provider-types';
import type { UserRow } from '../../queries/columns';
import { findIdentitiesByUserId } from '../../queries/identities';
import { setLastSignIn } from '../../queries/users';
import type { TokenResponseJson } from '../../serialize';
import { tokenResponse } from '../sessions/access-token';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { resolveExternalUser } from './accounts';
import { AmrMethod, createSession } from '../sessions/sessions';

/** The providers whose apps sign in natively with an ID token. */
export const ID_TOKEN_PROVIDERS = ['google', 'apple', 'azure', 'keycloak'] as const;

export interface IdTokenInput {
  idToken: string;
  provider?: string;
  clientId?: string;
  issuer?: string;
  accessToken?: string;
  nonce?: string;
  /** link_identity: the signed-in user the identity joins. */
  linkingUser?: UserRow;
  client: ClientInfo;
}

const invalid = (description: string) => new OAuthError('invalid request', description);

export async function signInWithIdToken(deps: Deps, providers: ProviderClient, input: IdTokenInput): Promise<TokenResponseJson> {
  if (!input.idToken) throw invalid('id_token required');
  const { provider, claims, profile, emailOptional, skipNonceCheck } = await verifiedProfile(deps, providers, input);
  checkNonce(claims, input.nonce, skipNonceCheck);
  if (input.accessToken && typeof claims.at_hash === 'string') {
    const digest = createHash('sha256').update(input.accessToken).digest();
    if (digest.subarray(0, digest.length / 2).toString('base64url') !== claims.at_hash) throw invalid('Invalid at_hash: the access token does not belong to the ID token');
  }

  const now = deps.clock.now();
  const result = await deps.db.transaction().execute(async (tx) => {
    const outcome = await resolveExternalUser(deps, tx, {
      provider, profile, linkingTargetId: input.linkingUser?.id ?? null, emailOptional, client: input.client, redirectTo: deps.config.siteUrl,
    });
    if (outcome.kind === 'needs-verification') return undefined;
    const issued = await createSession(tx, { user: outcome.user, method: AmrMethod.oauth, client: input.client, at: now });
    await setLastSignIn(tx, outcome.user.id, now);
    await audit(tx, { actor: outcome.user, action: AuditAction.login, client: input.client, at: now, traits: { provider, grant_type: 'id_token' } });
    return { user: { ...outcome.user, last_sign_in_at: now }, issued };
  });
  if (!result) {
    throw new ApiError(422, ErrorCode.provider_email_needs_verification,
      `Unverified email with ${provider}. A confirmation email has been sent to your ${provider} email`);
  }
  return tokenResponse(deps, {
    user: result.user,
    identities: await findIdentitiesByUserId(deps.db, result.user.id),
    session: result.issued.session,
    amr: result.issued.amr,
    refreshToken: result.issued.refreshToken,
  });
}

async function verifiedProfile(
  deps: Deps,
  providers: ProviderClient,
  input: IdTokenInput,
): Promise<{ provider: string; claims: Record<string, unknown>; profile: ExternalProfile; emailOptional: boolean; skipNonceCheck?: boolean }> {
  const tokens: ProviderTokens = { accessToken: input.accessToken ?? '', idToken: input.idToken, raw: {} };
  try {
    if (input.provider?.trim().toLowerCase().startsWith('custom:')) {
      const identifier = input.provider.trim().toLowerCase();
      if (!providers.custom) throw new ApiError(400, ErrorCode.validation_failed, 'Custom OAuth providers are disabled');
      const { def, config, row } = await providers.custom.resolve(identifier);
      if (row.provider_type !== 'oidc') throw new ApiError(400, ErrorCode.validation_failed, `Provider "${identifier}" is not an OIDC provider`);
      // Audience: the provider's client_id or one of its acceptable_client_ids; issuer and keys: its discovery document.
      const claims = await providers.verifyIdToken(def, config, input.idToken);
      const profile = await def.profile(verifiedContext(claims, config), tokens);
      return { provider: identifier, claims, profile, emailOptional: row.email_optional, skipNonceCheck: row.skip_nonce_check };
    }
    if (input.provider) {
      const name = input.provider.trim().toLowerCase();
      if (!(ID_TOKEN_PROVIDERS as readonly string[]).includes(name)) throw invalid(`Provider ${input.provider} does not support ID token sign-in`);
      const key = name as (typeof ID_TOKEN_PROVIDERS)[number];
      const config = deps.config.external.providers[key];
      const def = PROVIDERS[key];
      if (!config.enabled) {
        const issuer = (config.url ?? def.defaultUrl ?? '').replace(/\/+$/, '');
        throw new ApiError(400, ErrorCode.provider_disabled, `Provider (issuer "${issuer}") is not enabled`);
      }
      const claims = await providers.verifyIdToken(def, config, input.idToken);
      const profile = await def.profile(verifiedContext(claims, config), tokens);
      return { provider: key, claims, profile, emailOptional: false };
    }
    if (!input.clientId || !input.issuer) throw invalid('provider or client_id and issuer required');
    const issuer = input.issuer.replace(/\/+$/, '');
    if (!deps.config.external.allowedIdTokenIssuers.map((i) => i.replace(/\/+$/, '')).includes(issuer)) {
      throw invalid(`Custom OIDC provider "${input.issuer}" not allowed`);
    }
    // The token must be minted for one of the client ids configured for this issuer, and the request must name one.
    const audiences = deps.config.external.idTokenIssuerClientIds[issuer] ?? [];
    if (!audiences.includes(input.clientId)) throw invalid(`client_id ${input.clientId} is not configured for issuer "${input.issuer}"`);
    const claims = await providers.verifyIdTokenOfIssuer(issuer, input.idToken, audiences);
    const profile = await oidcProfile(verifiedContext(claims, undefined), tokens, issuer);
    return { provider: issuer, claims, profile, emailOptional: false };
  } catch (err) {
    if (err instanceof ProviderError) throw invalid(`Bad ID token: ${err.message}`);
    throw err;
  }
}

/** A profile context over claims that are already verified: nothing more is fetched. */
function verifiedContext(claims: Record<string, unknown>, config: ProfileContext['provider'] | undefined): ProfileContext {
  return {
    provider: config ?? { enabled: true, clientId: undefined, secret: undefined, redirectUri: undefined, url: undefined },
    base: '',
    callbackFields: {},
    getJson: () => Promise.reject(new ProviderError('no profile requests for an ID token')),
    verifyIdToken: async () => claims,
  };
}

/** GoTrue's rule: the app's nonce and the token's nonce come together or not at all; the token holds SHA-256 hex. */
function checkNonce(claims: Record<string, unknown>, nonce: string | undefined, skipWhenAbsent = false): void {
  const inToken = typeof claims.nonce === 'string' && claims.nonce !== '' ? claims.nonce : undefined;
  if (!inToken && !nonce) return;
  // skip_nonce_check (a custom provider's setting, for native SDKs that cannot pass one): only an absent nonce is let through.
  if (skipWhenAbsent && !nonce) return;
  if (!inToken || !nonce) throw invalid('Passed nonce and nonce in id_token should either both exist or not.');
  const hashed = createHash('sha256').update(nonce).digest('hex');
  if (hashed !== inToken) throw invalid('Nonces mismatch');
}
