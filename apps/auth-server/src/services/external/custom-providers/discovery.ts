// A custom OIDC provider's discovery document: fetched through the outbound guard (redirects re-checked each hop),
// its issuer must be the configured one, and the endpoints the sign-in needs must be https URLs.
import type { OidcDiscoveryJson } from '@keyzone/db';
import { checkOutboundUrl, outboundRequest, type GuardedAgent } from '../../platform/outbound';
import type { Discovery } from '../provider-types';

export const DISCOVERY_TIMEOUT_MS = 10_000;

const trimSlash = (url: string) => url.replace(/\/+$/, '');

/** `<issuer>/.well-known/openid-configuration`, unless the admin named another discovery_url. */
export function discoveryUrlOf(issuer: string, discoveryUrl: string | null | undefined): string {
  return discoveryUrl ? discoveryUrl : `${trimSlash(issuer)}/.well-known/openid-configuration`;
}

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined;

/** The document, or an Error whose message says what is wrong with it. */
export async function fetchDiscovery(agent: GuardedAgent, url: string, expectedIssuer: string): Promise<OidcDiscoveryJson> {
  const answer = await outboundRequest(agent, url, { headers: { accept: 'application/json' }, timeoutMs: DISCOVERY_TIMEOUT_MS, maxBytes: 512 * 1024 });
  if (answer.status !== 200) throw new Error(`the server answered ${answer.status}`);
  let doc: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(answer.body);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    doc = parsed as Record<string, unknown>;
  } catch {
    throw new Error('the answer is not a JSON object');
  }
  const text = (name: string) => (typeof doc[name] === 'string' && doc[name] !== '' ? (doc[name] as string) : undefined);
  const missing = ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri'].filter((name) => text(name) === undefined);
  if (missing.length > 0) throw new Error(`the document is missing required fields: ${missing.join(', ')}`);
  const issuer = text('issuer')!;
  if (trimSlash(issuer) !== trimSlash(expectedIssuer)) throw new Error(`the document's issuer ${issuer} is not ${expectedIssuer}`);
  for (const name of ['token_endpoint', 'jwks_uri', 'userinfo_endpoint']) {
    const value = text(name);
    if (value === undefined) continue;
    try {
      checkOutboundUrl(value);
    } catch (err) {
      throw new Error(`${name}: ${(err as Error).message}`);
    }
  }
  const authorize = text('authorization_endpoint')!;
  if (!/^https:\/\//i.test(authorize)) throw new Error('authorization_endpoint: URL must use HTTPS');
  const found: OidcDiscoveryJson = {
    issuer,
    authorization_endpoint: authorize,
    token_endpoint: text('token_endpoint')!,
    jwks_uri: text('jwks_uri')!,
  };
  const userinfo = text('userinfo_endpoint');
  if (userinfo) found.userinfo_endpoint = userinfo;
  for (const name of ['scopes_supported', 'response_types_supported', 'grant_types_supported', 'subject_types_supported'] as const) {
    const list = strings(doc[name]);
    if (list) found[name] = list;
  }
  return found;
}

export function discoveryOf(doc: OidcDiscoveryJson): Discovery {
  return { issuer: doc.issuer, authorize: doc.authorization_endpoint, token: doc.token_endpoint, userinfo: doc.userinfo_endpoint, jwksUri: doc.jwks_uri };
}
