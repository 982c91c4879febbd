// External sign-in (reference §7.2-§7.4): /authorize sends the browser to the provider with a flow state as
// `state`; /callback checks that state, exchanges the code, reads the profile, decides the account
// (accounts.ts) and ends with a session in the fragment (implicit) or ?code= (PKCE).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { PROVIDER_NAMES, type ProviderConfig, type ProviderName } from '@keyzone/config';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import { PROVIDERS } from './providers';
import { clientIds, type ProviderClient } from './provider-client';
import { ProviderError, type ProviderDefinition } from './provider-types';
import { completeOAuthFlowState, consumeOAuthFlowState, findOAuthFlowStateForUpdate, insertOAuthFlowState } from '../../queries/flow-state';
import { findIdentitiesByUserId } from '../../queries/identities';
import { setLastSignIn } from '../../queries/users';
import { tokenResponse } from '../sessions/access-token';
import { audit, AuditAction } from '../platform/audit';
import type { ClientInfo } from '../platform/context';
import { resolveExternalUser } from './accounts';
import { FLOW_STATE_TTL_SECONDS, type PkceParams } from './pkce';
import { redirectPolicyFor } from '../platform/redirects';
import { errorLocation, errorParams, sessionParams, withFragment, withQuery } from '../platform/redirect-urls';
import { AmrMethod, createSession } from '../sessions/sessions';
import { isUuid } from '../../uuid';

type FlowDeps = Pick<Deps, 'config' | 'clock' | 'db' | 'jwt' | 'mailer' | 'log'>;

/** Query parameters /authorize keeps for itself or that belong to the OAuth exchange (never forwarded). */
const RESERVED = new Set([
  'provider', 'scopes', 'client_id', 'client_secret', 'redirect_uri', 'response_type', 'state',
  'code_challenge', 'code_challenge_method', 'code_verifier', 'skip_http_redirect', 'redirect_to',
]);


/**
 * An enabled provider by its (case-insensitive) name, else 400 "Unsupported provider"; `custom:<name>` is one an
 * admin added (custom-providers/registry.ts).
 */
export async function enabledProvider(deps: Pick<Deps, 'config'>, providers: ProviderClient, name: string): Promise<{ def: ProviderDefinition; config: ProviderConfig }> {
  if (name.trim().toLowerCase().startsWith('custom:')) {
    if (!providers.custom) throw new ApiError(400, ErrorCode.validation_failed, 'Custom OAuth providers are disabled');
    return providers.custom.resolve(name.trim().toLowerCase());
  }
  const key = name.trim().toLowerCase() as ProviderName;
  const config = (PROVIDER_NAMES as readonly string[]).includes(key) ? deps.config.external.providers[key] : undefined;
  if (!config?.enabled) throw new ApiError(400, ErrorCode.validation_failed, `Unsupported provider: Provider ${name} could not be found`);
  return { def: PROVIDERS[key], config };
}

function unreachable(provider: string, err: unknown): ApiError {
  return new ApiError(502, ErrorCode.unexpected_failure, `${provider}: ${(err as Error).message}`, { cause: err });
}

export interface AuthorizeInput {
  provider: string;
  /** Scopes asked for besides the provider's defaults, separated by spaces or commas. */
  scopes: string | undefined;
  /** The validated redirect target. */
  redirectTo: string;
  pkce: PkceParams | undefined;
  /** The rest of the query string, forwarded to the provider (reserved names removed here). */
  query: Record<string, string>;
  linkingTargetId?: string;
  /**
   * The browser itself asks (GET /authorize): the flow is bound to it by a cookie. Not when a client fetches the URL
   * to open it later (auth-js linkIdentity with skip_http_redirect), where no cookie can be set in the browser.
   */
  browserBound: boolean;
}

/** The cookie that binds a flow to the browser that started it: one per flow, for the flow's lifetime. */
export const flowCookieName = (state: string) => `kz-oauth-${state}`;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * The provider's authorization URL, after storing the flow state that is its `state`; with `browserBound`, also the
 * value of the flow's cookie (flowCookieName) the browser must bring back to /callback.
 */
export async function startAuthorization(deps: FlowDeps, providers: ProviderClient, input: AuthorizeInput): Promise<{ url: string; state: string; binding?: string }> {
  const { def, config } = await enabledProvider(deps, providers, input.provider);
  let authorizeUrl: URL;
  try {
    authorizeUrl = new URL((await providers.endpoints(def, config)).authorize);
  } catch (err) {
    throw unreachable(def.name, err);
  }
  const id = randomUUID();
  const verifier = def.requiresPkce ? randomBytes(48).toString('base64url') : null;
  const binding = input.browserBound ? randomBytes(32).toString('base64url') : undefined;
  await insertOAuthFlowState(deps.db, {
    id, provider: def.name, referrer: input.redirectTo, pkce: input.pkce, linkingTargetId: input.linkingTargetId ?? null,
    providerCodeVerifier: verifier, emailOptional: def.emailOptional === true, browserBinding: binding ? sha256(binding) : null, at: deps.clock.now(),
  });

  const params = authorizeUrl.searchParams;
  for (const [name, value] of Object.entries(input.query)) {
    if (!RESERVED.has(name)) params.set(name === 'workos_provider' ? 'provider' : name, value);
  }
  const scopes = [...new Set([...def.scopes, ...(input.scopes ?? '').split(/[\s,]+/).filter(Boolean)])];
  params.set('client_id', clientIds(config, def)[0] ?? '');
  params.set('redirect_uri', config.redirectUri ?? '');
  params.set('response_type', 'code');
  if (scopes.length > 0) params.set('scope', scopes.join(def.scopeSeparator ?? ' '));
  params.set('state', id);
  for (const [name, value] of Object.entries(def.authorizeParams ?? {})) params.set(name, value);
  if (verifier) {
    params.set('code_challenge', createHash('sha256').update(verifier).digest('base64url'));
    params.set('code_challenge_method', 'S256');
  }
  return { url: authorizeUrl.toString(), state: id, binding };
}

/** Everything /callback received, from the query string or apple's form post. */
export type CallbackParams = Record<string, string>;

/** The location the browser goes to after /callback; every failure is a redirect with error parameters. */
export async function completeAuthorization(
  deps: FlowDeps,
  providers: ProviderClient,
  params: CallbackParams,
  client: ClientInfo,
  /** The flow cookies the browser sent, by name. */
  cookies: Record<string, string> = {},
): Promise<string> {
  const policy = redirectPolicyFor(deps.config);
  let target = deps.config.siteUrl;
  let pkce = false;
  try {
    const state = params.state ?? '';
    if (state === '') throw new ApiError(400, ErrorCode.bad_oauth_callback, 'OAuth state parameter missing');
    if (!isUuid(state)) throw new ApiError(400, ErrorCode.bad_oauth_state, 'OAuth callback with invalid state');

    const now = deps.clock.now();
    const { flow, authCode } = await deps.db.transaction().execute(async (tx) => {
      const row = await findOAuthFlowStateForUpdate(tx, state);
      if (!row || row.auth_code !== null || new Date(row.created_at).getTime() + FLOW_STATE_TTL_SECONDS * 1000 < now.getTime()) {
        throw new ApiError(400, ErrorCode.bad_oauth_state, 'OAuth callback with invalid state');
      }
      // Login CSRF: a callback carrying someone else's state and code, opened in this browser, must not sign it in.
      const cookie = cookies[flowCookieName(row.id)];
      if (row.browser_binding !== null && (!cookie || sha256(cookie) !== row.browser_binding)) {
        throw new ApiError(400, ErrorCode.bad_oauth_state, 'OAuth callback in another browser than the one that started the sign-in');
      }
      const code = row.code_challenge ? randomUUID() : null;
      await consumeOAuthFlowState(tx, row.id, code, now);
      return { flow: row, authCode: code };
    });
    target = policy.validate(flow.referrer);
    pkce = flow.code_challenge !== null;

    if (params.error) {
      const description = params.error_description || params.error;
      return errorLocation(target, { error: params.error, error_code: params.error, error_description: description }, pkce);
    }
    if (!params.code) throw new ApiError(400, ErrorCode.bad_oauth_callback, 'OAuth callback with missing authorization code');

    const { def, config } = await enabledProvider(deps, providers, flow.provider_type);
    let profile;
    let tokens;
    try {
      tokens = await providers.exchangeCode(def, config, { code: params.code, codeVerifier: flow.provider_code_verifier ?? undefined });
      profile = await providers.profile(def, config, tokens, params);
    } catch (err) {
      if (err instanceof ProviderError) throw new ApiError(500, ErrorCode.unexpected_failure, `Error from ${def.name}: ${err.message}`, { cause: err });
      throw err;
    }

    const signedIn = await deps.db.transaction().execute(async (tx) => {
      const outcome = await resolveExternalUser(deps, tx, {
        provider: def.name, profile, linkingTargetId: flow.linking_target_id, emailOptional: def.emailOptional === true, client, redirectTo: target,
      });
      if (outcome.kind === 'needs-verification') return undefined;
      const { user } = outcome;
      // A PKCE flow signs in (and is audited) when its code is exchanged.
      if (pkce) {
        await completeOAuthFlowState(tx, { id: flow.id, userId: user.id, providerAccessToken: tokens.accessToken, providerRefreshToken: tokens.refreshToken ?? null, at: now });
        return { user, issued: undefined };
      }
      const issued = await createSession(tx, { user, method: AmrMethod.oauth, client, at: now });
      await setLastSignIn(tx, user.id, now);
      await audit(tx, { actor: user, action: AuditAction.login, client, at: now, traits: { provider: def.name } });
      return { user: { ...user, last_sign_in_at: now }, issued };
    });
    if (!signedIn) {
      throw new ApiError(422, ErrorCode.provider_email_needs_verification,
        `Unverified email with ${def.name}. A confirmation email has been sent to your ${def.name} email`);
    }
    if (!signedIn.issued) return withQuery(target, { code: authCode ?? '' });
    const session = await tokenResponse(deps, {
      user: signedIn.user,
      identities: await findIdentitiesByUserId(deps.db, signedIn.user.id),
      session: signedIn.issued.session,
      amr: signedIn.issued.amr,
      refreshToken: signedIn.issued.refreshToken,
    });
    return withFragment(target, {
      ...sessionParams(session),
      provider_refresh_token: tokens.refreshToken ?? '',
      provider_token: tokens.accessToken,
    });
  } catch (err) {
    const { params: errors, unexpected } = errorParams(err);
    // GoTrue's answer to an address the provider has not verified: the user may not sign in (yet).
    if (err instanceof ApiError && err.code === ErrorCode.provider_email_needs_verification) errors.error = 'access_denied';
    if (unexpected) deps.log.error({ err }, 'OAuth callback failed');
    return errorLocation(target, errors, pkce);
  }
}
