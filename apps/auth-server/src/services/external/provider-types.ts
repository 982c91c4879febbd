// What a provider module declares (endpoints, scopes, how to read a profile) and what it hands back.
import type { ProviderConfig, ProviderName } from '@keyzone/config';

/** The provider's answer to the code exchange. */
export interface ProviderTokens {
  accessToken: string;
  refreshToken?: string;
  idToken?: string;
  /** The whole answer: some providers put the profile in it (workos) or extra ids (slack). */
  raw: Record<string, unknown>;
}

/** A provider's user, mapped to what an identity keeps. */
export interface ExternalProfile {
  providerId: string;
  email?: string;
  /** True only when the provider says the address is verified (or only ever returns verified ones). */
  emailVerified: boolean;
  name?: string;
  avatarUrl?: string;
  userName?: string;
  /** The issuer, for OpenID Connect providers. */
  issuer?: string;
  /** Claims a custom provider's custom_claims_allowlist copies verbatim (identity_data.custom_claims). */
  customClaims?: Record<string, unknown>;
}

export interface Endpoints {
  authorize: string;
  token: string;
}

/** What a profile reader may use: the provider's settings, JSON over HTTP with a timeout, ID-token checks. */
export interface ProfileContext {
  provider: ProviderConfig;
  base: string;
  getJson(url: string, init?: { headers?: Record<string, string>; bearer?: string | false }): Promise<unknown>;
  /** Verifies an ID token from this provider (signature by the issuer's keys, audience, issuer, expiry). */
  verifyIdToken(idToken: string): Promise<Record<string, unknown>>;
  /** Extra fields the provider sent to /callback (apple posts the user's name once, as `user`). */
  callbackFields: Record<string, string>;
  /** OpenID Connect: the discovered userinfo endpoint, if any. */
  userinfoEndpoint?: string;
}

/** An OpenID Connect provider's endpoints and keys, from its discovery document. */
export interface Discovery {
  issuer: string;
  authorize: string;
  token: string;
  userinfo: string | undefined;
  jwksUri: string;
}

export interface ProviderDefinition {
  /** A built-in provider's name, or a custom provider's identifier (custom:<name>). */
  name: ProviderName | `custom:${string}`;
  /** The public base URL; undefined when the operator must set EXTERNAL_<X>_URL (keycloak). */
  defaultUrl: string | undefined;
  /** OpenID Connect: endpoints and keys come from <base>/.well-known/openid-configuration. */
  oidc?: boolean;
  /** Endpoints below the base URL (a self-hosted install or a test server keeps the same paths). */
  endpoints?(base: string): Endpoints;
  /** Scopes asked for by default: enough for the email address and the name. */
  scopes: string[];
  scopeSeparator?: ' ' | ',';
  /** Fixed parameters of the authorization request. */
  authorizeParams?: Record<string, string>;
  /** The provider requires PKCE of its client (twitter): the server makes and keeps the verifier. */
  requiresPkce?: boolean;
  /** How the client authenticates at the token endpoint; default: client_id and client_secret in the form. */
  tokenAuth?: 'form' | 'basic' | 'basic-json';
  /** The provider may have no email for a user (the account is then made without one). */
  emailOptional?: boolean;
  profile(ctx: ProfileContext, tokens: ProviderTokens): Promise<ExternalProfile>;
  /** A custom provider's stored discovery document: used instead of fetching <base>/.well-known/openid-configuration. */
  discovered?: Discovery;
  /** A custom provider's client ids (the first signs in, all are accepted as ID-token audiences); default EXTERNAL_<X>_CLIENT_ID. */
  clientIds?: string[];
  /** Its URLs were typed by an admin: every request to them goes through the outbound guard (services/platform/outbound.ts). */
  guarded?: boolean;
}

/** Thrown when a provider answers with an error or something unusable; its message is shown to the user. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
}

/** Small readers for provider JSON. */
export const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
export const obj = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
export const arr = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

export function requireId(value: unknown, provider: string): string {
  const id = str(value);
  if (!id) throw new ProviderError(`${provider} returned a profile without a user id`);
  return id;
}
