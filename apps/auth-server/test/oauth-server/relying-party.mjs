// An OpenID Connect relying party built with openid-client v6 (ESM only, so it runs as its own process).
// argv[2]: JSON {issuer, clientId, clientSecret, auth: 'post'|'basic', redirectUri, scope}.
// Prints one JSON line {authorizationUrl}; reads the callback URL (where the authorization server redirected the
// browser) from stdin; then runs the code exchange (ID token checked against the JWKS, nonce, audience), userinfo
// and a refresh, and prints one JSON line with the results (or {error}).
import { createInterface } from 'node:readline';
import * as client from 'openid-client';

const input = JSON.parse(process.argv[2]);
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

try {
  const auth = input.auth === 'basic' ? client.ClientSecretBasic(input.clientSecret) : client.ClientSecretPost(input.clientSecret);
  const config = await client.discovery(new URL(input.issuer), input.clientId, undefined, auth, { execute: [client.allowInsecureRequests] });
  const verifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const state = client.randomState();
  const authorizationUrl = client.buildAuthorizationUrl(config, {
    redirect_uri: input.redirectUri,
    scope: input.scope,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    nonce,
    state,
  });
  print({ authorizationUrl: authorizationUrl.href, nonce, state });
  const callback = (await lines.next()).value;
  const tokens = await client.authorizationCodeGrant(config, new URL(callback), { pkceCodeVerifier: verifier, expectedNonce: nonce, expectedState: state, idTokenExpected: true });
  const claims = tokens.claims();
  const userinfo = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
  const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token);
  const userinfoAfterRefresh = await client.fetchUserInfo(config, refreshed.access_token, claims.sub);
  print({
    metadata: config.serverMetadata(),
    idTokenClaims: claims,
    idToken: tokens.id_token,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    scope: tokens.scope,
    userinfo,
    refreshed: { accessToken: refreshed.access_token, refreshToken: refreshed.refresh_token, expiresIn: refreshed.expires_in },
    userinfoAfterRefresh,
  });
} catch (err) {
  let detail;
  if (err.cause instanceof globalThis.Response) detail = { status: err.cause.status, body: await err.cause.text().catch(() => '') };
  else if (err.cause && typeof err.cause === 'object') detail = { message: err.cause.message, claim: err.cause.cause?.claim ?? err.cause.claim };
  print({ error: `${err.name}: ${err.message}`, code: err.code, detail });
}
process.exit(0);
