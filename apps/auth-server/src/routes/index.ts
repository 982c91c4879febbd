// The route table: one line per route with its guards, in order. app.ts mounts this router at /
// and at /auth/v1. Global concerns (request id + logging, CORS, error rendering) sit in app.ts.
//   json       – JSON body, 1 MiB cap (400 bad_json / 413)
//   captcha    – SECURITY_CAPTCHA_ENABLED: a verified captcha_token (400 captcha_failed); admins and
//                the refresh_token/pkce/id_token grants skip it
//   jsonOrForm – the same, plus application/x-www-form-urlencoded (only /token)
//   user       – user access token, live session, not banned
//   requireAdmin(deps) – JWT role in JWT_ADMIN_ROLES (for the admin-*.ts families)
//   tokenLimit – RATE_LIMIT_TOKEN_REFRESH per 5 min per client (burst 30)
//   verifyLimit / otpLimit / userUpdateLimit – RATE_LIMIT_VERIFY / RATE_LIMIT_OTP per 5 min per client
//   ssoLimit / acsLimit – RATE_LIMIT_SSO per 5 min, SAML_RATE_LIMIT_ASSERTION per second, per client
//                Every limit (also the sign-up ones in routes/signup.ts) is counted in PostgreSQL, so all
//                instances share it; over it: 429 over_request_rate_limit with Retry-After
import { Router, type RequestHandler } from 'express';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { requireAdmin, requireUser, userOf } from '../http/auth';
import { parseBody } from '../http/body';
import { requireCaptcha } from '../http/captcha';
import { burstFor, sharedRateLimit } from '../http/rate-limit';
import { listAdminAudit } from './admin-audit';
import { adminRunningConfig } from './admin-console';
import { adminGenerateLink } from './admin-generate-link';
import { createAdminUser, deleteAdminUser, getAdminUser, listAdminUsers, signOutAdminUser, updateAdminUser } from './admin-users';
import { web3Grant, web3Nonce } from './web3';
import {
  deleteRecoveryCodesRoute, generateRecoveryCodesRoute, recoveryCodesStatusRoute, regenerateRecoveryCodesRoute, verifyRecoveryCodeRoute,
} from './mfa-recovery-codes';
import { samlAcs, samlMetadata, startSsoRoute } from './sso';
import { createSsoProviderRoute, deleteSsoProviderRoute, getSsoProviderRoute, listSsoProvidersRoute, updateSsoProviderRoute } from './admin-sso';
import { MetadataRefresh } from '../services/sso/providers';
import { ServiceProvider } from '../services/sso/service-provider';
import {
  adminDeletePasskey, adminListPasskeys, authenticationOptions, authenticationVerify, deletePasskeyRoute, listPasskeysRoute, registrationOptions,
  registrationVerify, renamePasskeyRoute,
} from './passkeys';
import { health, liveness } from './health';
import { idTokenGrant } from './id-token-grant';
import { authorize, callback, linkIdentity, unlink } from './oauth';
import { adminDeleteFactor, adminListFactors, adminUpdateFactor, challenge, enroll, unenroll, verify as verifyFactorRoute } from './mfa';
import { ProviderClient } from '../services/external/provider-client';
import { CustomProviderRegistry } from '../services/external/custom-providers/registry';
import { AddressPolicy, GuardedAgent } from '../services/platform/outbound';
import {
  createCustomProviderRoute, deleteCustomProviderRoute, getCustomProviderRoute, listCustomProvidersRoute, updateCustomProviderRoute,
} from './admin-custom-providers';
import { jwks } from './jwks';
import {
  authorizeRoute, consentRoute, discovery, dynamicRegister, getAuthorizationRoute, introspectRoute, listGrantsRoute, oauthTokenRoute,
  requireOAuthServer, revokeGrantRoute, revokeRoute, userInfoRoute,
} from './oauth-server';
import {
  adminCreateClient, adminDeleteClient, adminGetClient, adminListClients, adminRegenerateSecret, adminUpdateClient,
} from './oauth-server-admin';
import { logout } from './logout';
import { settings } from './settings';
import { signup } from './signup';
import { endHostedSession, noCrossOriginRead, refreshHostedSession, startHostedSession } from './hosted-session';
import { refuseCrossSiteWrites } from '@keyzone/ui/server';
import { sendApiError } from '../http/errors';
import { token, type GrantTable } from './token';
import { getUser, putUser } from './user';
import { invite } from './invite';
import { magiclink, otp } from './otp';
import { pkceGrant } from './pkce-grant';
import { reauthenticate } from './reauthenticate';
import { recover } from './recover';
import { resend } from './resend';
import { verifyGet, verifyPost } from './verify';

export function buildRouter(deps: Deps): Router {
  const router = Router();
  const json = parseBody();
  const jsonOrForm = parseBody({ allowForm: true });
  const user = requireUser(deps);
  const captcha = requireCaptcha(deps);
  const { rateLimit } = deps.config;
  const tokenLimit = sharedRateLimit(deps, { name: 'token', limit: rateLimit.tokenRefresh, windowSeconds: 300, burst: burstFor(rateLimit.tokenRefresh) });
  // Each /authorize stores a flow state: a client gets the /token rate of them.
  const authorizeLimit = sharedRateLimit(deps, { name: 'authorize', limit: rateLimit.tokenRefresh, windowSeconds: 300, burst: burstFor(rateLimit.tokenRefresh) });
  const userUpdateLimit = sharedRateLimit(deps, { name: 'user', limit: rateLimit.otp, windowSeconds: 300, burst: burstFor(rateLimit.otp) });
  const verifyLimit = sharedRateLimit(deps, { name: 'verify', limit: rateLimit.verify, windowSeconds: 300 });
  const otpLimit = sharedRateLimit(deps, { name: 'otp', limit: rateLimit.otp, windowSeconds: 300 });
  // Sign in with Ethereum / Solana: RATE_LIMIT_WEB3 per 5 min per client, for grant_type=web3 and for nonces.
  const web3Limit = sharedRateLimit(deps, { name: 'web3', limit: rateLimit.web3, windowSeconds: 300 });
  const web3GrantLimit: RequestHandler = (req, res, next) => (req.query.grant_type === 'web3' ? web3Limit(req, res, next) : next());
  // MFA challenge + verify: MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY per minute per client (GoTrue's limit) and per user,
  // so a stolen password cannot try TOTP codes from many addresses (issue 26).
  const mfaRate = { limit: deps.config.mfa.rateLimitChallengeAndVerify, windowSeconds: 60 };
  const mfaLimit = sharedRateLimit(deps, { name: 'mfa', ...mfaRate });
  const mfaUserLimit = sharedRateLimit(deps, { name: 'mfa-user', ...mfaRate }, (req) => userOf(req).user.id);

  // URLs an admin typed (custom providers, SAML metadata_url) are reached only through the outbound guard.
  const outbound = new GuardedAgent({
    policy: new AddressPolicy(deps.config.outbound.allowedNetworks), ca: deps.outboundHttpsAgent?.options.ca, lookup: deps.outboundLookup,
  });
  const customProviders = new CustomProviderRegistry(deps, outbound);
  // One provider client per app: it caches the providers' discovery documents and keys.
  const providers = new ProviderClient({ clock: deps.clock, outbound, custom: customProviders });
  // SAML SSO: this service provider (its certificate is made once per app).
  const serviceProvider = new ServiceProvider(deps.config.saml, outbound);
  const sso = { ...deps, serviceProvider, metadataRefresh: new MetadataRefresh({ ...deps, httpsAgent: serviceProvider.httpsAgent }) };
  const ssoLimit = sharedRateLimit(deps, { name: 'sso', limit: rateLimit.sso, windowSeconds: 300, burst: burstFor(rateLimit.sso) });
  const acsLimit = sharedRateLimit(deps, { name: 'saml-acs', limit: deps.config.saml.rateLimitAssertion, windowSeconds: 1 });

  // The hosted pages' cookie session (routes/hosted-session.ts); the pages themselves are mounted in app.ts.
  const sameOrigin = [noCrossOriginRead, refuseCrossSiteWrites({
    refuse: (req, res) => sendApiError(req, res, new ApiError(403, ErrorCode.validation_failed, 'Cross-site request refused')),
  })];
  router.post('/hosted/session', tokenLimit, sameOrigin, json, startHostedSession(deps));
  router.post('/hosted/session/refresh', tokenLimit, sameOrigin, refreshHostedSession(deps));
  router.post('/hosted/session/end', sameOrigin, endHostedSession(deps));
  router.get('/health', health(deps));
  router.get('/health/live', liveness());
  router.get('/settings', settings(deps));
  router.get('/.well-known/jwks.json', jwks(deps));

  router.post('/signup', json, captcha, signup(deps));
  // Grants beyond password/refresh_token, built per app so two apps never share a table.
  const extraGrants: GrantTable = new Map([
    ['pkce', pkceGrant],
    ['id_token', idTokenGrant(providers)],
    ['web3', web3Grant],
  ]);
  router.post('/token', tokenLimit, web3GrantLimit, jsonOrForm, captcha, token(deps, extraGrants));
  router.get('/web3/nonce', web3Limit, web3Nonce(deps));

  router.get('/user', user, getUser(deps));
  router.put('/user', userUpdateLimit, user, json, putUser(deps));
  router.post('/logout', user, logout(deps));

  // Email flows (routes/verify.ts, otp.ts, recover.ts, resend.ts, invite.ts, reauthenticate.ts).
  router.get('/verify', verifyLimit, verifyGet(deps));
  router.post('/verify', verifyLimit, json, verifyPost(deps));
  router.post('/otp', otpLimit, json, captcha, otp(deps));
  router.post('/magiclink', otpLimit, json, captcha, magiclink(deps));
  router.post('/recover', otpLimit, json, captcha, recover(deps));
  router.post('/resend', otpLimit, json, captcha, resend(deps));
  router.get('/reauthenticate', user, reauthenticate(deps));
  // External providers (routes/oauth.ts); linking answers 404 manual_linking_disabled unless switched on.
  router.get('/authorize', authorizeLimit, authorize(deps, providers));
  router.get('/callback', callback(deps, providers));
  router.post('/callback', jsonOrForm, callback(deps, providers));
  router.get('/user/identities/authorize', user, linkIdentity(deps, providers));
  router.delete('/user/identities/:identity_id', user, unlink(deps));
  // Multi-factor authentication (routes/mfa.ts).
  // MFA recovery codes (routes/mfa-recovery-codes.ts), before the /factors/:factor_id routes; verify has the MFA limits.
  router.get('/factors/recovery-codes', user, recoveryCodesStatusRoute(deps));
  router.post('/factors/recovery-codes', user, json, generateRecoveryCodesRoute(deps));
  router.post('/factors/recovery-codes/regenerate', user, json, regenerateRecoveryCodesRoute(deps));
  router.post('/factors/recovery-codes/verify', mfaLimit, user, mfaUserLimit, json, verifyRecoveryCodeRoute(deps));
  router.delete('/factors/recovery-codes', user, deleteRecoveryCodesRoute(deps));
  router.post('/factors', user, json, enroll(deps));
  router.post('/factors/:factor_id/challenge', mfaLimit, user, mfaUserLimit, json, challenge(deps));
  router.post('/factors/:factor_id/verify', mfaLimit, user, mfaUserLimit, json, verifyFactorRoute(deps));
  router.delete('/factors/:factor_id', user, unenroll(deps));
  // Passkeys (routes/passkeys.ts): 404 passkey_disabled unless PASSKEY_ENABLED. A sign-in counts as a /token call;
  // each options call stores a challenge, so it gets the /authorize rate.
  router.post('/passkeys/registration/options', authorizeLimit, user, json, registrationOptions(deps));
  router.post('/passkeys/registration/verify', user, json, registrationVerify(deps));
  router.post('/passkeys/authentication/options', authorizeLimit, json, captcha, authenticationOptions(deps));
  router.post('/passkeys/authentication/verify', tokenLimit, json, authenticationVerify(deps));
  router.get('/passkeys', user, listPasskeysRoute(deps));
  router.patch('/passkeys/:passkey_id', user, json, renamePasskeyRoute(deps));
  router.delete('/passkeys/:passkey_id', user, deletePasskeyRoute(deps));
  // SAML SSO (routes/sso.ts, admin-sso.ts): 404 saml_provider_disabled unless SAML_ENABLED.
  router.post('/sso', ssoLimit, json, captcha, startSsoRoute(sso));
  router.get('/sso/saml/metadata', samlMetadata(sso));
  router.post('/sso/saml/acs', acsLimit, jsonOrForm, samlAcs(sso));
  router.post('/invite', requireAdmin(deps), json, invite(deps));
  // Admin engineer: /admin/* families from routes/admin-*.ts, each guarded by requireAdmin(deps).
  const admin = requireAdmin(deps);
  router.get('/admin/users', admin, listAdminUsers(deps));
  router.post('/admin/users', admin, json, createAdminUser(deps));
  router.get('/admin/users/:user_id', admin, getAdminUser(deps));
  router.post('/admin/users/:user_id', admin, json, createAdminUser(deps));
  router.put('/admin/users/:user_id', admin, json, updateAdminUser(deps));
  router.delete('/admin/users/:user_id', admin, json, deleteAdminUser(deps));
  router.post('/admin/users/:user_id/logout', admin, signOutAdminUser(deps));
  router.get('/admin/audit', admin, listAdminAudit(deps));
  router.get('/admin/config', admin, adminRunningConfig(deps));
  router.get('/admin/users/:user_id/factors', admin, adminListFactors(deps));
  router.put('/admin/users/:user_id/factors/:factor_id', admin, json, adminUpdateFactor(deps));
  router.delete('/admin/users/:user_id/factors/:factor_id', admin, adminDeleteFactor(deps));
  router.post('/admin/generate_link', admin, json, adminGenerateLink(deps));
  router.get('/admin/users/:user_id/passkeys', admin, adminListPasskeys(deps));
  router.delete('/admin/users/:user_id/passkeys/:passkey_id', admin, adminDeletePasskey(deps));
  router.get('/admin/sso/providers', admin, listSsoProvidersRoute(sso));
  router.post('/admin/sso/providers', admin, json, createSsoProviderRoute(sso));
  router.get('/admin/sso/providers/:idp_id', admin, getSsoProviderRoute(sso));
  router.put('/admin/sso/providers/:idp_id', admin, json, updateSsoProviderRoute(sso));
  router.delete('/admin/sso/providers/:idp_id', admin, deleteSsoProviderRoute(sso));
  const custom = { ...deps, customProviders };
  router.get('/admin/custom-providers', admin, listCustomProvidersRoute(custom));
  router.post('/admin/custom-providers', admin, json, createCustomProviderRoute(custom));
  router.get('/admin/custom-providers/:identifier', admin, getCustomProviderRoute(custom));
  router.put('/admin/custom-providers/:identifier', admin, json, updateCustomProviderRoute(custom));
  router.delete('/admin/custom-providers/:identifier', admin, deleteCustomProviderRoute(custom));
  // Keyzone as an OAuth 2.1 / OpenID Connect authorization server (routes/oauth-server*.ts): 404 feature_disabled
  // unless AUTH_OAUTH_SERVER_ENABLED. Dynamic registration gets RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER per hour;
  // the token, revocation and introspection endpoints the /token rate.
  const oauthServer = requireOAuthServer(deps);
  const registerLimit = sharedRateLimit(deps, { name: 'oauth-register', limit: deps.config.oauthServer.rateLimitDynamicRegister, windowSeconds: 3600 });
  router.get('/.well-known/openid-configuration', oauthServer, discovery(deps));
  router.get('/.well-known/oauth-authorization-server', oauthServer, discovery(deps));
  router.post('/oauth/clients/register', oauthServer, registerLimit, json, dynamicRegister(deps));
  router.get('/oauth/authorize', oauthServer, authorizeLimit, authorizeRoute(deps));
  router.get('/oauth/authorizations/:authorization_id', oauthServer, user, getAuthorizationRoute(deps));
  router.post('/oauth/authorizations/:authorization_id/consent', oauthServer, user, json, consentRoute(deps));
  router.post('/oauth/token', oauthServer, tokenLimit, jsonOrForm, oauthTokenRoute(deps));
  // Only userinfo takes the tokens of OAuth clients; every other user route refuses them (http/auth.ts).
  const oauthClientUser = requireUser(deps, { oauthClients: true });
  router.get('/oauth/userinfo', oauthServer, oauthClientUser, userInfoRoute());
  router.post('/oauth/userinfo', oauthServer, oauthClientUser, userInfoRoute());
  router.post('/oauth/revoke', oauthServer, tokenLimit, jsonOrForm, revokeRoute(deps));
  router.post('/oauth/introspect', oauthServer, tokenLimit, jsonOrForm, introspectRoute(deps));
  router.get('/user/oauth/grants', oauthServer, user, listGrantsRoute(deps));
  router.delete('/user/oauth/grants', oauthServer, user, revokeGrantRoute(deps));
  router.post('/admin/oauth/clients', oauthServer, admin, json, adminCreateClient(deps));
  router.get('/admin/oauth/clients', oauthServer, admin, adminListClients(deps));
  router.get('/admin/oauth/clients/:client_id', oauthServer, admin, adminGetClient(deps));
  router.put('/admin/oauth/clients/:client_id', oauthServer, admin, json, adminUpdateClient(deps));
  router.delete('/admin/oauth/clients/:client_id', oauthServer, admin, adminDeleteClient(deps));
  router.post('/admin/oauth/clients/:client_id/regenerate_secret', oauthServer, admin, adminRegenerateSecret(deps));
  return router;
}
