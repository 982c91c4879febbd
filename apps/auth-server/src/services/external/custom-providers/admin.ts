// /admin/custom-providers (GoTrue's custom_oauth_admin.go): create, read, update and delete custom OAuth 2.0 and
// OpenID Connect providers. Rules as GoTrue's: identifiers `custom:<name>`, required fields per type, no reserved
// OAuth parameters in authorization_params, no system fields as attribute_mapping targets, https URLs that resolve
// to reachable addresses, the OIDC discovery document fetched and checked before anything is stored (outside any
// transaction), CUSTOM_OAUTH_MAX_PROVIDERS. Stricter: the client secret is always sealed, and URLs are checked again
// on every connection (services/platform/outbound.ts), not only when they are saved.
import { randomUUID } from 'node:crypto';
import type { Updateable } from 'kysely';
import type { CustomOAuthProvidersTable, OidcDiscoveryJson } from '@keyzone/db';
import type { Deps } from '../../../deps';
import { ApiError, ErrorCode } from '../../../errors';
import {
  countCustomProviders, deleteCustomProvider, findCustomProvider, insertCustomProvider, listCustomProviders, lockCustomProviderCreation,
  updateCustomProvider, type CustomProviderRow,
} from '../../../queries/custom-oauth-providers';
import { checkOutboundUrl, OutboundRefused } from '../../platform/outbound';
import { discoveryUrlOf, fetchDiscovery } from './discovery';
import type { CustomProviderRegistry } from './registry';

type AdminDeps = Pick<Deps, 'config' | 'db' | 'clock' | 'log'> & { customProviders: CustomProviderRegistry };

export type CustomProviderType = 'oauth2' | 'oidc';

/** The body of a create or update, as GoTrue reads it (an empty string is "not given"). */
export interface CustomProviderInput {
  provider_type?: string;
  identifier?: string;
  name?: string;
  client_id?: string;
  client_secret?: string;
  acceptable_client_ids?: string[];
  scopes?: string[];
  pkce_enabled?: boolean;
  attribute_mapping?: Record<string, unknown>;
  custom_claims_allowlist?: string[];
  authorization_params?: Record<string, unknown>;
  enabled?: boolean;
  email_optional?: boolean;
  issuer?: string;
  discovery_url?: string;
  skip_nonce_check?: boolean;
  authorization_url?: string;
  token_url?: string;
  userinfo_url?: string;
  jwks_uri?: string;
}

const bad = (message: string) => new ApiError(400, ErrorCode.validation_failed, message);
const notFound = () => new ApiError(404, ErrorCode.custom_provider_not_found, 'Custom OAuth provider not found');

/** GoTrue's identifier rule: the `custom:` prefix, and its table's format (lowercase letters, digits, ':' and '-'). */
const IDENTIFIER_FORMAT = /^[a-z0-9][a-z0-9:-]{0,48}[a-z0-9]$/;

export function checkIdentifier(identifier: string | undefined): string {
  if (!identifier) throw bad('identifier is required');
  if (!identifier.startsWith('custom:')) throw bad(`identifier must start with 'custom:' prefix, e.g. 'custom:${identifier}'`);
  if (!IDENTIFIER_FORMAT.test(identifier)) {
    throw bad('identifier must be custom: followed by lowercase letters, digits and hyphens, at most 50 characters in all, ending in a letter or digit');
  }
  return identifier;
}

const RESERVED_PARAMS = ['client_id', 'client_secret', 'redirect_uri', 'response_type', 'state', 'code_challenge', 'code_challenge_method', 'code_verifier', 'nonce'];
const PROTECTED_TARGETS = [
  'id', 'aud', 'role', 'app_metadata', 'created_at', 'updated_at', 'confirmed_at', 'email_confirmed_at', 'phone_confirmed_at',
  'email_verified', 'phone_verified', 'banned_until', 'is_super_admin',
];

function checkAuthorizationParams(params: Record<string, unknown> | undefined): Record<string, string> | undefined {
  if (params === undefined) return undefined;
  for (const [key, value] of Object.entries(params)) {
    if (RESERVED_PARAMS.includes(key)) throw bad(`Cannot override reserved OAuth parameter: ${key}`);
    if (typeof value !== 'string') throw bad(`Authorization parameter "${key}" must be a string`);
  }
  return params as Record<string, string>;
}

function checkAttributeMapping(mapping: Record<string, unknown> | undefined): void {
  for (const target of Object.keys(mapping ?? {})) {
    if (PROTECTED_TARGETS.includes(target)) throw bad(`Cannot map to protected system field: ${target}`);
  }
}

function checkClaimsAllowlist(list: string[] | undefined): void {
  if (list?.some((key) => key.trim() === '')) throw bad('custom_claims_allowlist entries must be non-empty strings');
}

function checkLengths(input: CustomProviderInput): void {
  if (input.name !== undefined && input.name.length > 100) throw bad('name must be at most 100 characters');
  if (input.client_id !== undefined && input.client_id.length > 512) throw bad('client_id must be at most 512 characters');
  for (const field of ['issuer', 'discovery_url', 'authorization_url', 'token_url', 'userinfo_url', 'jwks_uri'] as const) {
    if ((input[field]?.length ?? 0) > 2048) throw bad(`${field} must be at most 2048 characters`);
  }
}

/** An admin-typed URL: https, and its host must resolve to an address the outbound guard allows. */
async function checkUrl(deps: AdminDeps, field: string, url: string): Promise<void> {
  try {
    checkOutboundUrl(url);
    await deps.customProviders.agent.vet(url);
  } catch (err) {
    if (err instanceof OutboundRefused) throw bad(`${field}: ${err.message}`);
    throw err;
  }
}

async function discover(deps: AdminDeps, issuer: string, discoveryUrl: string | null | undefined): Promise<OidcDiscoveryJson> {
  const url = discoveryUrlOf(issuer, discoveryUrl);
  try {
    return await fetchDiscovery(deps.customProviders.agent, url, issuer);
  } catch (err) {
    throw bad(`OIDC discovery from "${url}" failed: ${(err as Error).message}`);
  }
}

const withOpenId = (scopes: string[]) => (scopes.includes('openid') ? scopes : ['openid', ...scopes]);
const given = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

function requireEnabled(deps: AdminDeps): void {
  if (!deps.customProviders.enabled) throw new ApiError(404, ErrorCode.feature_disabled, 'Custom OAuth providers are disabled');
}

export async function listCustomProvidersOf(deps: AdminDeps, type: string | undefined): Promise<CustomProviderRow[]> {
  requireEnabled(deps);
  if (type !== undefined && type !== '' && type !== 'oauth2' && type !== 'oidc') throw bad("type must be either 'oauth2' or 'oidc'");
  return listCustomProviders(deps.db, type === '' ? undefined : (type as CustomProviderType | undefined));
}

export async function getCustomProvider(deps: AdminDeps, identifier: string): Promise<CustomProviderRow> {
  requireEnabled(deps);
  if (!identifier.startsWith('custom:')) throw bad(`identifier must start with 'custom:' prefix, e.g. 'custom:${identifier}'`);
  const row = await findCustomProvider(deps.db, identifier);
  if (!row) throw notFound();
  return row;
}

export async function createCustomProvider(deps: AdminDeps, input: CustomProviderInput): Promise<CustomProviderRow> {
  requireEnabled(deps);
  if (input.provider_type !== 'oauth2' && input.provider_type !== 'oidc') throw bad("provider_type must be either 'oauth2' or 'oidc'");
  const type: CustomProviderType = input.provider_type;
  const identifier = checkIdentifier(given(input.identifier));
  if (!given(input.name)) throw bad('name is required');
  if (!given(input.client_id)) throw bad('client_id is required');
  if (!given(input.client_secret)) throw bad('client_secret is required');
  if (type === 'oidc' && !given(input.issuer)) throw bad('issuer is required for OIDC providers');
  if (type === 'oauth2') {
    for (const field of ['authorization_url', 'token_url', 'userinfo_url'] as const) {
      if (!given(input[field])) throw bad(`${field} is required for OAuth2 providers`);
    }
  }
  checkLengths(input);
  const authorizationParams = checkAuthorizationParams(input.authorization_params) ?? {};
  checkAttributeMapping(input.attribute_mapping);
  checkClaimsAllowlist(input.custom_claims_allowlist);
  const max = deps.config.customOAuth.maxProviders;
  if (max > 0 && (await countCustomProviders(deps.db)) >= max) {
    throw new ApiError(400, ErrorCode.over_custom_provider_quota, 'Maximum number of custom OAuth/OIDC providers reached');
  }
  const urls: Array<[string, string | undefined]> = type === 'oidc'
    ? [['issuer', input.issuer], ['discovery_url', given(input.discovery_url)]]
    : [['authorization_url', input.authorization_url], ['token_url', input.token_url], ['userinfo_url', input.userinfo_url], ['jwks_uri', given(input.jwks_uri)]];
  for (const [field, url] of urls) if (url) await checkUrl(deps, field, url);
  if (await findCustomProvider(deps.db, identifier)) throw conflict();

  // The network call happens before the transaction: none is held open across it.
  const discovery = type === 'oidc' ? await discover(deps, input.issuer!, given(input.discovery_url)) : null;
  const id = randomUUID();
  const now = deps.clock.now();
  try {
    return await deps.db.transaction().execute(async (tx) => {
      await lockCustomProviderCreation(tx);
      if (max > 0 && (await countCustomProviders(tx)) >= max) {
        throw new ApiError(400, ErrorCode.over_custom_provider_quota, 'Maximum number of custom OAuth/OIDC providers reached');
      }
      if (await findCustomProvider(tx, identifier)) throw conflict();
      return insertCustomProvider(tx, {
        id,
        provider_type: type,
        identifier,
        name: input.name!,
        client_id: input.client_id!,
        client_secret: deps.customProviders.sealSecret(input.client_secret!, id),
        acceptable_client_ids: JSON.stringify(input.acceptable_client_ids ?? []),
        scopes: JSON.stringify(type === 'oidc' ? withOpenId(input.scopes ?? []) : (input.scopes ?? [])),
        pkce_enabled: input.pkce_enabled ?? true,
        attribute_mapping: JSON.stringify(input.attribute_mapping ?? {}),
        custom_claims_allowlist: JSON.stringify(input.custom_claims_allowlist ?? []),
        authorization_params: JSON.stringify(authorizationParams),
        enabled: input.enabled ?? true,
        email_optional: input.email_optional ?? false,
        issuer: type === 'oidc' ? input.issuer! : null,
        discovery_url: type === 'oidc' ? (given(input.discovery_url) ?? null) : null,
        skip_nonce_check: type === 'oidc' ? (input.skip_nonce_check ?? false) : false,
        cached_discovery: discovery ? JSON.stringify(discovery) : null,
        discovery_cached_at: discovery ? now : null,
        authorization_url: type === 'oauth2' ? input.authorization_url! : null,
        token_url: type === 'oauth2' ? input.token_url! : null,
        userinfo_url: type === 'oauth2' ? input.userinfo_url! : null,
        jwks_uri: type === 'oauth2' ? (given(input.jwks_uri) ?? null) : null,
        created_at: now,
        updated_at: now,
      });
    });
  } catch (err) {
    // Two creations of the same identifier at once: the unique index decides.
    if ((err as { code?: string }).code === '23505') throw conflict();
    throw err;
  }
}

const conflict = () => new ApiError(400, ErrorCode.conflict, 'A custom OAuth provider with this identifier already exists');

export async function updateCustomProviderFrom(deps: AdminDeps, identifier: string, input: CustomProviderInput): Promise<CustomProviderRow> {
  const row = await getCustomProvider(deps, identifier);
  checkLengths(input);
  const authorizationParams = checkAuthorizationParams(input.authorization_params);
  checkAttributeMapping(input.attribute_mapping);
  checkClaimsAllowlist(input.custom_claims_allowlist);

  const changes: Updateable<CustomOAuthProvidersTable> = {};
  if (given(input.name)) changes.name = input.name;
  if (given(input.client_id)) changes.client_id = input.client_id;
  if (input.acceptable_client_ids) changes.acceptable_client_ids = JSON.stringify(input.acceptable_client_ids);
  if (input.scopes) changes.scopes = JSON.stringify(row.provider_type === 'oidc' ? withOpenId(input.scopes) : input.scopes);
  if (input.pkce_enabled !== undefined) changes.pkce_enabled = input.pkce_enabled;
  if (input.attribute_mapping) changes.attribute_mapping = JSON.stringify(input.attribute_mapping);
  if (input.custom_claims_allowlist) changes.custom_claims_allowlist = JSON.stringify(input.custom_claims_allowlist);
  if (authorizationParams) changes.authorization_params = JSON.stringify(authorizationParams);
  if (input.enabled !== undefined) changes.enabled = input.enabled;
  if (input.email_optional !== undefined) changes.email_optional = input.email_optional;

  if (row.provider_type === 'oidc') {
    const issuer = given(input.issuer);
    const discoveryUrl = given(input.discovery_url);
    if (issuer) await checkUrl(deps, 'issuer', issuer);
    if (discoveryUrl) await checkUrl(deps, 'discovery_url', discoveryUrl);
    if (input.skip_nonce_check !== undefined) changes.skip_nonce_check = input.skip_nonce_check;
    if (issuer || discoveryUrl) {
      const nextIssuer = issuer ?? row.issuer!;
      const nextDiscoveryUrl = discoveryUrl ?? row.discovery_url;
      const discovery = await discover(deps, nextIssuer, nextDiscoveryUrl);
      Object.assign(changes, { issuer: nextIssuer, discovery_url: nextDiscoveryUrl, cached_discovery: JSON.stringify(discovery), discovery_cached_at: deps.clock.now() });
    }
  } else {
    for (const field of ['authorization_url', 'token_url', 'userinfo_url', 'jwks_uri'] as const) {
      const url = given(input[field]);
      if (!url) continue;
      await checkUrl(deps, field, url);
      changes[field] = url;
    }
  }
  // GoTrue re-seals only a newly given secret.
  if (given(input.client_secret)) changes.client_secret = deps.customProviders.sealSecret(input.client_secret!, row.id);
  changes.updated_at = deps.clock.now();
  const updated = await updateCustomProvider(deps.db, row.id, new Date(row.updated_at), changes);
  if (!updated) throw new ApiError(409, ErrorCode.conflict, 'The provider was changed or deleted meanwhile: read it again and retry');
  return updated;
}

export async function deleteCustomProviderBy(deps: AdminDeps, identifier: string): Promise<void> {
  requireEnabled(deps);
  if (!identifier.startsWith('custom:')) throw bad(`identifier must start with 'custom:' prefix, e.g. 'custom:${identifier}'`);
  if (!(await deleteCustomProvider(deps.db, identifier))) throw notFound();
}
