// Talking to providers: endpoints (declared, or discovered for OpenID Connect), the code exchange, profile
// reads and ID-token checks, all over fetch with a timeout. One client per app: it caches discovery
// documents for an hour and each issuer's keys (jose refetches them when an unknown kid appears). A custom provider
// (`guarded`) brings its stored discovery document, and its requests go through the outbound guard.
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { ProviderConfig } from '@keyzone/config';
import type { Clock } from '../../clock';
import { outboundRequest, type GuardedAgent } from '../platform/outbound';
import type { CustomProviderRegistry } from './custom-providers/registry';
import { obj, ProviderError, str, type Discovery, type Endpoints, type ExternalProfile, type ProviderDefinition, type ProviderTokens } from './provider-types';

const DISCOVERY_TTL_MS = 3600_000;

/**
 * EXTERNAL_<X>_CLIENT_ID may list several ids (web, iOS, Android): the first signs in on the web. A custom provider
 * declares its own (client_id, then acceptable_client_ids).
 */
export function clientIds(config: ProviderConfig, def?: Pick<ProviderDefinition, 'clientIds'>): string[] {
  if (def?.clientIds) return def.clientIds;
  return (config.clientId ?? '').split(',').map((id) => id.trim()).filter(Boolean);
}

interface HttpInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

export class ProviderClient {
  private readonly discoveries = new Map<string, { at: number; value: Promise<Discovery> }>();
  private readonly keySets = new Map<string, JWTVerifyGetKey>();

  constructor(private readonly options: { timeoutMs?: number; clock: Clock; outbound?: GuardedAgent; custom?: CustomProviderRegistry }) {}

  /** The admin-managed providers (custom:<name>), when the app has them. */
  get custom(): CustomProviderRegistry | undefined {
    return this.options.custom;
  }

  baseOf(def: ProviderDefinition, config: ProviderConfig): string {
    const base = config.url ?? def.defaultUrl;
    if (!base) throw new ProviderError(`${def.name} has no URL configured`);
    return base.replace(/\/+$/, '');
  }

  async endpoints(def: ProviderDefinition, config: ProviderConfig): Promise<Endpoints & { userinfo?: string }> {
    const base = this.baseOf(def, config);
    if (def.discovered) return { authorize: def.discovered.authorize, token: def.discovered.token, userinfo: def.discovered.userinfo };
    if (def.oidc) {
      const found = await this.discover(base);
      return { authorize: found.authorize, token: found.token, userinfo: found.userinfo };
    }
    if (!def.endpoints) throw new ProviderError(`${def.name} declares no endpoints`);
    return def.endpoints(base);
  }

  async exchangeCode(def: ProviderDefinition, config: ProviderConfig, input: { code: string; codeVerifier?: string }): Promise<ProviderTokens> {
    const { token } = await this.endpoints(def, config);
    const clientId = clientIds(config, def)[0] ?? '';
    const fields: Record<string, string> = { grant_type: 'authorization_code', code: input.code, redirect_uri: config.redirectUri ?? '' };
    if (input.codeVerifier) fields.code_verifier = input.codeVerifier;
    const headers: Record<string, string> = { accept: 'application/json' };
    const auth = def.tokenAuth ?? 'form';
    if (auth === 'form') Object.assign(fields, { client_id: clientId, client_secret: config.secret ?? '' });
    else {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(config.secret ?? '')}`).toString('base64')}`;
      fields.client_id = clientId;
    }
    const json = auth === 'basic-json';
    headers['content-type'] = json ? 'application/json' : 'application/x-www-form-urlencoded';
    const answer = obj(await this.request(def, token, { method: 'POST', headers, body: json ? JSON.stringify(fields) : new URLSearchParams(fields).toString() }));
    const accessToken = str(answer.access_token);
    if (!accessToken) {
      const reason = str(answer.error_description) ?? str(answer.error) ?? 'no access_token in the answer';
      throw new ProviderError(`${def.name} refused the code: ${reason}`);
    }
    return { accessToken, refreshToken: str(answer.refresh_token), idToken: str(answer.id_token), raw: answer };
  }

  async profile(def: ProviderDefinition, config: ProviderConfig, tokens: ProviderTokens, callbackFields: Record<string, string>): Promise<ExternalProfile> {
    const base = this.baseOf(def, config);
    const endpoints = await this.endpoints(def, config);
    return def.profile(
      {
        provider: config,
        base,
        callbackFields,
        userinfoEndpoint: endpoints.userinfo,
        getJson: (url, init = {}) => {
          const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
          if (init.bearer !== false) headers.authorization = `Bearer ${init.bearer ?? tokens.accessToken}`;
          return this.request(def, url, { method: 'GET', headers });
        },
        verifyIdToken: (idToken) => this.verifyIdToken(def, config, idToken),
      },
      tokens,
    );
  }

  /** Signature by the issuer's published keys, audience one of the client ids, issuer and expiry. */
  async verifyIdToken(def: ProviderDefinition, config: ProviderConfig, idToken: string): Promise<Record<string, unknown>> {
    const discovery = def.discovered ?? (await this.discover(this.baseOf(def, config)));
    return this.verifyWithIssuer(discovery, idToken, clientIds(config, def), def.guarded === true);
  }

  /** For ALLOWED_ID_TOKEN_ISSUERS: the issuer's own discovery document names its keys. */
  async verifyIdTokenOfIssuer(issuer: string, idToken: string, audience: string[]): Promise<Record<string, unknown>> {
    return this.verifyWithIssuer(await this.discover(issuer.replace(/\/+$/, '')), idToken, audience);
  }

  private async verifyWithIssuer(discovery: Discovery, idToken: string, audience: string[], guarded = false): Promise<Record<string, unknown>> {
    const cacheKey = `${guarded ? 'guarded' : 'open'} ${discovery.jwksUri}`;
    let keys = this.keySets.get(cacheKey);
    if (!keys) {
      if (guarded && !this.options.outbound) throw new ProviderError('no outbound guard configured');
      // jose fetches the keys through the given agent: for a custom provider, the guard's (it follows no redirect).
      keys = createRemoteJWKSet(new URL(discovery.jwksUri), { timeoutDuration: this.options.timeoutMs ?? 10_000, agent: guarded ? this.options.outbound : undefined });
      this.keySets.set(cacheKey, keys);
    }
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(idToken, keys, {
        audience,
        // A token without exp would be valid forever: every ID token must expire (issue 26).
        requiredClaims: ['exp'],
        currentDate: this.options.clock.now(),
        algorithms: ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'EdDSA'],
      }));
    } catch (err) {
      throw new ProviderError(`the ID token is not valid: ${(err as Error).message}`);
    }
    if (!issuerMatches(discovery.issuer, str(payload.iss))) throw new ProviderError(`the ID token's issuer ${String(payload.iss)} is not ${discovery.issuer}`);
    return payload;
  }

  private discover(base: string): Promise<Discovery> {
    const now = Date.now();
    const cached = this.discoveries.get(base);
    if (cached && now - cached.at < DISCOVERY_TTL_MS) return cached.value;
    const value = (async () => {
      const doc = obj(await this.request(undefined, `${base}/.well-known/openid-configuration`, { method: 'GET', headers: { accept: 'application/json' } }));
      const issuer = str(doc.issuer);
      const authorize = str(doc.authorization_endpoint);
      const token = str(doc.token_endpoint);
      const jwksUri = str(doc.jwks_uri);
      if (!issuer || !authorize || !token || !jwksUri) throw new ProviderError(`${base}: incomplete OpenID configuration`);
      return { issuer, authorize, token, jwksUri, userinfo: str(doc.userinfo_endpoint) };
    })();
    this.discoveries.set(base, { at: now, value });
    value.catch(() => this.discoveries.delete(base));
    return value;
  }

  private async send(def: ProviderDefinition | undefined, url: string, init: HttpInit): Promise<{ status: number; contentType: string; text: string }> {
    const timeoutMs = this.options.timeoutMs ?? 10_000;
    try {
      if (def?.guarded) {
        if (!this.options.outbound) throw new Error('no outbound guard configured');
        const answer = await outboundRequest(this.options.outbound, url, { ...init, method: init.method as 'GET' | 'POST', timeoutMs, maxRedirects: 0 });
        const type = answer.headers['content-type'];
        return { status: answer.status, contentType: (Array.isArray(type) ? type[0] : type) ?? '', text: answer.body };
      }
      const response = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
      return { status: response.status, contentType: response.headers.get('content-type') ?? '', text: await response.text() };
    } catch (err) {
      throw new ProviderError(`${new URL(url).host} did not answer: ${(err as Error).message}`);
    }
  }

  private async request(def: ProviderDefinition | undefined, url: string, init: HttpInit): Promise<unknown> {
    const response = await this.send(def, url, init);
    const text = response.text;
    const ok = response.status >= 200 && response.status < 300;
    let body: unknown;
    if (/^application\/x-www-form-urlencoded/.test(response.contentType)) {
      body = Object.fromEntries(new URLSearchParams(text));
    } else {
      try {
        body = text === '' ? {} : JSON.parse(text);
      } catch {
        throw new ProviderError(`${new URL(url).host} answered ${response.status} with something that is not JSON`);
      }
    }
    if (!ok) {
      const b = obj(body);
      const reason = str(b.error_description) ?? str(b.error) ?? str(b.message) ?? `HTTP ${response.status}`;
      throw new ProviderError(`${new URL(url).host} answered ${response.status}: ${reason}`);
    }
    return body;
  }
}

/** Microsoft's multi-tenant issuer is a template: https://login.microsoftonline.com/{tenantid}/v2.0. */
function issuerMatches(expected: string, actual: string | undefined): boolean {
  if (!actual) return false;
  if (!expected.includes('{tenantid}')) return expected.replace(/\/+$/, '') === actual.replace(/\/+$/, '');
  const [before, after] = expected.split('{tenantid}') as [string, string];
  return actual.startsWith(before) && actual.endsWith(after) && /^[0-9a-f-]{36}$/i.test(actual.slice(before.length, actual.length - after.length));
}
