// Signing in with an OpenID Connect provider (auth.yml oidc; issue 40): Keyzone's own auth server, Keycloak, Entra
// ID, any provider with discovery. GET /session/oidc sends the browser to the provider's authorization endpoint
// (authorization code, PKCE S256, state, nonce; the transaction in a signed cookie: oidc-transaction.ts); the
// callback exchanges the code (client_secret_basic, or _post when the provider's discovery offers only that),
// verifies the ID token (signature from the provider's JWKS, iss, aud, exp, nonce, azp, at_hash) and maps its
// subject to a DNS user:
//   - by a link in dns.user_identities: the provider's `sub` as is when the provider is the auth server of auth.yml
//     (or auth.yml accepts no tokens), so one link serves both; else `<issuer>#<sub>`, so two providers' subjects
//     never meet;
//   - or, with link_by_verified_email, at first sign-in when the ID token says the address is verified and exactly
//     one live DNS user has exactly that address; never while the provider is a GoTrue-style server that confirms
//     addresses by itself (its /settings says mailer_autoconfirm: then anyone can sign up there with any address).
// Every network call happens outside any database transaction; the route then starts the usual cookie session.
import { requireUser, type RequireUserMiddleware } from '@keyzone/tokens';
import { createHash } from 'node:crypto';
import type { DnsConfig, DnsOidcConfig } from '@keyzone/config';
import type { Logger } from 'pino';
import type { Clock } from '../../clock';
import { ApiError, type ErrorCode } from '../../errors';
import type { Db } from '../../queries/db';
import { deleteLinksToGoneUsers, findLinkedUser, findLiveUserIdsByEmail, insertUserIdentity } from '../../queries/user-identities';
import { findUserById } from '../../queries/users';
import type { Caller } from './caller';
import { codeChallengeOf, newTransaction, sameString, TransactionCodec, type OidcTransaction } from './oidc-transaction';

const TIMEOUT_MS = 10_000;
/** After a failed discovery, how long a stale document keeps serving before the provider is asked again. */
const RETRY_DISCOVERY_MS = 30_000;

/** What the console shows after `?oidc_error=`. */
export type OidcFailure =
  | 'not_configured' | 'invalid_redirect' | 'invalid_request' | 'invalid_state' | 'access_denied' | 'provider_error'
  | 'exchange_failed' | 'invalid_id_token' | 'not_linked' | 'email_not_verified' | 'too_many_requests' | 'unavailable';

/** An ApiError that also says which `oidc_error` a browser is sent back with. */
export class OidcError extends ApiError {
  constructor(readonly reason: OidcFailure, code: ErrorCode, message: string, options?: { cause?: unknown; headers?: Record<string, string> }) {
    super(code, message, undefined, options);
  }
}

interface Discovery {
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  /** client_secret_basic or client_secret_post, as the provider offers (basic when it says nothing, per the spec). */
  clientAuth: 'client_secret_basic' | 'client_secret_post';
  /** A GoTrue-style provider that confirms addresses without a mail: its email_verified proves nothing. */
  confirmsByItself: boolean;
}

const unavailable = (message: string, cause?: unknown) => new OidcError('unavailable', 'unavailable', message, { cause });
const badIdToken = (why: string) => new OidcError('invalid_id_token', 'invalid_credentials', `The provider's ID token was refused: ${why}`);

function httpUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** OIDC Core 3.1.3.6: the left half of the access token's hash with the ID token's algorithm's SHA. */
function accessTokenHash(accessToken: string, alg: string): string | undefined {
  const bits = /^(?:RS|ES|PS)(256|384|512)$/.exec(alg)?.[1] ?? (alg === 'EdDSA' ? '512' : undefined);
  if (!bits) return undefined;
  const digest = createHash(`sha${bits}`).update(accessToken).digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

function headerAlg(jwt: string): string {
  try {
    const header = JSON.parse(Buffer.from(jwt.split('.')[0] ?? '', 'base64url').toString('utf8')) as { alg?: unknown };
    return typeof header.alg === 'string' ? header.alg : '';
  } catch {
    return '';
  }
}

export class OidcSignIn {
  readonly codec: TransactionCodec;
  private discovery: { value: Discovery; until: number } | undefined;
  private pending: Promise<Discovery> | undefined;
  private verifier: { jwksUri: string; middleware: RequireUserMiddleware } | undefined;
  /** Links are the bare `sub` (shared with auth.yml's bearer tokens) or `<issuer>#<sub>`. */
  private readonly bareSubjects: boolean;

  constructor(
    readonly settings: DnsOidcConfig,
    auth: DnsConfig['auth'],
    sessionSecret: string,
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    this.codec = new TransactionCodec(sessionSecret);
    const strip = (u: string | undefined) => u?.replace(/\/+$/, '');
    const issuer = strip(settings.issuer);
    this.bareSubjects = !auth.enabled || issuer === strip(auth.url) || issuer === strip(auth.issuer);
  }

  /** The dns.user_identities key of a provider's subject. */
  linkKeyOf(sub: string): string {
    return this.bareSubjects ? sub : `${this.settings.issuer}#${sub}`;
  }

  /** GET /session/oidc: a fresh transaction and the provider URL to send the browser to. */
  async start(redirectTo: string): Promise<{ location: string; transaction: OidcTransaction }> {
    const discovery = await this.discover();
    const transaction = newTransaction(redirectTo, this.clock.now());
    const url = new URL(discovery.authorizationEndpoint);
    const params = {
      response_type: 'code',
      client_id: this.settings.clientId,
      redirect_uri: this.settings.redirectUri,
      scope: this.settings.scopes.join(' '),
      state: transaction.state,
      nonce: transaction.nonce,
      code_challenge: codeChallengeOf(transaction.verifier),
      code_challenge_method: 'S256',
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return { location: url.toString(), transaction };
  }

  /** The transaction of the callback's cookie, checked against its `state` and spent (a replay is refused). */
  takeTransaction(cookie: string | undefined, state: string | undefined): OidcTransaction {
    const now = this.clock.now();
    const transaction = this.codec.open(cookie, now);
    if (!transaction || !state || !sameString(transaction.state, state)) {
      throw new OidcError('invalid_state', 'bad_request', 'This sign-in was not started in this browser, or it expired; start again');
    }
    if (!this.codec.spend(transaction, now)) throw new OidcError('invalid_state', 'bad_request', 'This sign-in was already used; start again');
    return transaction;
  }

  /**
   * The callback's code → the verified ID token's claims (the code exchanged with the transaction's PKCE verifier,
   * the token checked for this client and this transaction's nonce).
   */
  async exchange(code: string, transaction: OidcTransaction): Promise<Record<string, unknown>> {
    const discovery = await this.discover();
    const form = new URLSearchParams({
      grant_type: 'authorization_code', code, redirect_uri: this.settings.redirectUri, code_verifier: transaction.verifier,
    });
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    const secret = this.settings.clientSecret;
    if (secret === undefined) {
      form.set('client_id', this.settings.clientId);
    } else if (discovery.clientAuth === 'client_secret_basic') {
      // RFC 6749 2.3.1: both form-encoded before the Basic encoding.
      const encode = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
      headers.authorization = `Basic ${Buffer.from(`${encode(this.settings.clientId)}:${encode(secret)}`).toString('base64')}`;
    } else {
      form.set('client_id', this.settings.clientId);
      form.set('client_secret', secret);
    }
    let response: Response;
    try {
      response = await fetch(discovery.tokenEndpoint, { method: 'POST', headers, body: form.toString(), signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'error' });
    } catch (err) {
      throw unavailable('The sign-in provider did not answer; try again', err);
    }
    const text = await response.text().catch(() => '');
    let body: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      // not JSON: judged by the status below
    }
    if (response.status >= 500) throw unavailable(`The sign-in provider answered ${response.status}; try again`);
    if (!response.ok) {
      this.log.warn({ status: response.status, error: body.error, description: body.error_description }, 'oidc: the provider refused the code');
      throw new OidcError('exchange_failed', 'invalid_credentials', 'The sign-in provider refused this sign-in; start again');
    }
    const idToken = body.id_token;
    const accessToken = body.access_token;
    if (typeof idToken !== 'string' || idToken === '') throw badIdToken('the provider sent none');
    const claims = await this.verifyIdToken(idToken, discovery);
    if (claims.nonce !== transaction.nonce) throw badIdToken('nonce mismatch');
    if (typeof claims.at_hash === 'string') {
      const expected = typeof accessToken === 'string' ? accessTokenHash(accessToken, headerAlg(idToken)) : undefined;
      if (!expected || !sameString(expected, claims.at_hash)) throw badIdToken('at_hash mismatch');
    }
    return claims;
  }

  /** The DNS user a verified ID token's subject signs in as; 403 when there is none. */
  async callerFor(claims: Record<string, unknown>): Promise<Caller> {
    const key = this.linkKeyOf(claims.sub as string);
    let linked = await findLinkedUser(this.db, key);
    if (!linked && this.settings.linkByVerifiedEmail && typeof claims.email === 'string' && claims.email !== '') {
      const verified = claims.email_verified === true || claims.email_verified === 'true';
      if (!verified || (await this.discover()).confirmsByItself) {
        throw new OidcError('email_not_verified', 'forbidden', 'Your address is not verified by the sign-in provider, and no DNS user is linked to you');
      }
      linked = await this.linkByEmail(key, claims.email);
    }
    // The administrator who is asked to link this person finds the subject to link here.
    if (!linked) this.log.info({ sub: key, email: claims.email }, 'oidc: no DNS user linked');
    if (!linked) throw new OidcError('not_linked', 'forbidden', 'No DNS user is linked to you; ask an administrator to link your account');
    return { userId: linked.user_id, groupId: linked.group_id, isAdmin: linked.is_admin, sessionId: 0 };
  }

  /** Whether discovery (and so sign-in) works now; the provider is asked at most once per refresh period. */
  async discover(): Promise<Discovery> {
    const now = this.clock.now().getTime();
    if (this.discovery && this.discovery.until > now) return this.discovery.value;
    this.pending ??= this.fetchDiscovery().finally(() => {
      this.pending = undefined;
    });
    try {
      const value = await this.pending;
      this.discovery = { value, until: this.clock.now().getTime() + this.settings.discoveryRefreshSeconds * 1000 };
      return value;
    } catch (err) {
      // A provider that is down for a moment keeps its last document (and keys) for a while.
      if (this.discovery) {
        this.discovery.until = now + RETRY_DISCOVERY_MS;
        this.log.warn({ err }, 'oidc: discovery failed; using the last document');
        return this.discovery.value;
      }
      throw err;
    }
  }

  private async linkByEmail(key: string, email: string) {
    const ids = await findLiveUserIdsByEmail(this.db, email);
    const user = ids.length === 1 ? await findUserById(this.db, ids[0]!) : undefined;
    // Exactly one live user, with exactly this address (the lookup ignores case; a mailbox's local part may not).
    if (!user || user.email !== email) return undefined;
    await deleteLinksToGoneUsers(this.db, key);
    await insertUserIdentity(this.db, { sub: key, userId: user.id, linkedBy: 'verified_email', now: this.clock.now() });
    this.log.info({ sub: key, userId: user.id }, 'oidc: linked by verified e-mail');
    return findLinkedUser(this.db, key);
  }

  private async verifyIdToken(idToken: string, discovery: Discovery): Promise<Record<string, unknown>> {
    if (this.verifier?.jwksUri !== discovery.jwksUri) {
      this.verifier = {
        jwksUri: discovery.jwksUri,
        middleware: requireUser({ jwksUrl: discovery.jwksUri, issuer: this.settings.issuer, audience: this.settings.clientId }),
      };
    }
    const result = await this.verifier.middleware.verifyToken(idToken);
    if ('failure' in result) {
      if (result.failure.status === 503) throw unavailable("The sign-in provider's signing keys are unavailable; try again");
      throw badIdToken(result.failure.description);
    }
    const claims = result.claims;
    if (typeof claims.sub !== 'string' || claims.sub === '' || claims.sub.length > 255) throw badIdToken('no subject');
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if ((audiences.length > 1 || claims.azp !== undefined) && claims.azp !== this.settings.clientId) throw badIdToken('azp is not this client');
    return claims;
  }

  private async fetchDiscovery(): Promise<Discovery> {
    const issuer = this.settings.issuer;
    const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    let doc: Record<string, unknown>;
    try {
      const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
      if (!response.ok) throw new Error(`${url} answered ${response.status}`);
      doc = (await response.json()) as Record<string, unknown>;
    } catch (err) {
      throw unavailable('The sign-in provider did not answer; try again', err);
    }
    const authorizationEndpoint = httpUrl(doc.authorization_endpoint);
    const tokenEndpoint = httpUrl(doc.token_endpoint);
    const jwksUri = httpUrl(doc.jwks_uri);
    // OIDC Discovery 4.3: the document must name exactly the issuer it was fetched for.
    if (doc.issuer !== issuer || !authorizationEndpoint || !tokenEndpoint || !jwksUri) {
      this.log.error({ url, issuer: doc.issuer }, 'oidc: the discovery document does not match auth.yml oidc.issuer, or lacks an endpoint');
      throw unavailable('The sign-in provider is misconfigured; tell an administrator');
    }
    const methods = Array.isArray(doc.token_endpoint_auth_methods_supported) ? doc.token_endpoint_auth_methods_supported : ['client_secret_basic'];
    const clientAuth = !methods.includes('client_secret_basic') && methods.includes('client_secret_post') ? 'client_secret_post' : 'client_secret_basic';
    return { authorizationEndpoint, tokenEndpoint, jwksUri, clientAuth, confirmsByItself: await this.confirmsByItself(issuer) };
  }

  /**
   * A GoTrue-style server (Keyzone's auth server, Supabase) publishes /settings; with mailer_autoconfirm its
   * email_verified is true for addresses nobody proved. Other providers have no such page (a 404: trusted). An
   * unreachable one counts as confirming by itself, so linking by e-mail fails closed until the next discovery.
   */
  private async confirmsByItself(issuer: string): Promise<boolean> {
    if (!this.settings.linkByVerifiedEmail) return false;
    try {
      const response = await fetch(`${issuer.replace(/\/+$/, '')}/settings`, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(TIMEOUT_MS) });
      if (!response.ok) return false;
      const settings = (await response.json().catch(() => ({}))) as { mailer_autoconfirm?: unknown };
      return settings.mailer_autoconfirm === true;
    } catch {
      return true;
    }
  }
}
