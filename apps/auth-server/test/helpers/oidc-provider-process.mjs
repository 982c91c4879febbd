// An OpenID Connect provider for tests: oauth2-mock-server (ESM only, so it runs in its own Node process,
// started by helpers/oidc-provider.ts). Its authorize endpoint consents at once; the claims of the user who
// consents come from the authorize request's `test_claims` parameter (JSON; a null claim is removed), which also shows that
// /authorize forwards extra parameters. Prints {"url": issuer} once listening.
import { Buffer } from 'node:buffer';
import process from 'node:process';
import { OAuth2Server } from 'oauth2-mock-server';

// With a key and a certificate file as arguments it serves HTTPS.
const server = new OAuth2Server(process.argv[2], process.argv[3]);
await server.issuer.keys.generate('RS256');
const claimsByCode = new Map();

server.service.on('beforeAuthorizeRedirect', (redirect, req) => {
  const code = redirect.url.searchParams.get('code');
  if (code && typeof req.query.test_claims === 'string') claimsByCode.set(code, JSON.parse(req.query.test_claims));
});
server.service.on('beforeTokenSigning', (token, req) => {
  const claims = claimsByCode.get(req.body?.code);
  if (claims) Object.assign(token.payload, claims);
  // A claim given as null is left out of the token (e.g. exp, to test tokens that never expire).
  for (const [name, value] of Object.entries(claims ?? {})) if (value === null) delete token.payload[name];
});
server.service.on('beforeUserinfo', (response, req) => {
  const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
  try {
    const payload = JSON.parse(Buffer.from(bearer.split('.')[1], 'base64url').toString());
    response.body = { sub: payload.sub, email: payload.email, email_verified: payload.email_verified, name: payload.name };
  } catch {
    response.statusCode = 401;
    response.body = { error: 'invalid_token' };
  }
});

await server.start(0, '127.0.0.1');
process.stdout.write(`${JSON.stringify({ url: server.issuer.url })}\n`);
process.on('SIGTERM', () => server.stop().then(() => process.exit(0)));
