// OAuth clients: admin registration (POST /admin/oauth/clients), RFC 7591 dynamic registration, update, delete
// and a new secret, with GoTrue's rules and messages (oauthserver/service.go). A confidential client gets a secret
// once, in the answer; only its SHA-256 is stored.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { OAuthClientType, OAuthTokenEndpointAuthMethod } from '@keyzone/db';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode, badRequest, forbidden, notFound } from '../../errors';
import { deleteClientConsents } from '../../queries/oauth-consents';
import {
  findOAuthClient, insertOAuthClient, listOAuthClients, markOAuthClientDeleted, updateOAuthClient, type OAuthClientRow,
} from '../../queries/oauth-clients';
import { deleteOAuthClientSessions } from '../../queries/sessions';
import { isUuid } from '../../uuid';

export const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
const GRANT_TYPES = ['authorization_code', 'refresh_token'];
const DANGEROUS_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'about:', 'blob:']);
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export interface ClientRegistration {
  redirect_uris?: string[];
  client_type?: string;
  token_endpoint_auth_method?: string;
  grant_types?: string[];
  client_name?: string;
  client_uri?: string;
  logo_uri?: string;
}

export type ClientUpdate = Omit<ClientRegistration, 'client_type'>;

export interface OAuthClientJson {
  client_id: string;
  client_secret?: string;
  client_type: string;
  redirect_uris: string[];
  token_endpoint_auth_method: string;
  grant_types: string[];
  response_types: string[];
  client_name?: string;
  client_uri?: string;
  logo_uri?: string;
  registration_type: string;
  created_at: string;
  updated_at: string;
}

const invalid = (message: string) => badRequest(ErrorCode.validation_failed, message);

export function hashClientSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

/** Constant-time comparison of a presented secret with the stored hash. */
export function secretMatches(presented: string, storedHash: string | null): boolean {
  if (!storedHash) return false;
  const stored = Buffer.from(storedHash, 'base64url');
  const computed = createHash('sha256').update(presented, 'utf8').digest();
  return stored.length === computed.length && timingSafeEqual(stored, computed);
}

export function redirectUrisOf(client: Pick<OAuthClientRow, 'redirect_uris'>): string[] {
  return client.redirect_uris.split(',').filter(Boolean);
}

export function grantTypesOf(client: Pick<OAuthClientRow, 'grant_types'>): string[] {
  return client.grant_types.split(',').filter(Boolean);
}

export function serializeClient(client: OAuthClientRow, secret?: string): OAuthClientJson {
  return {
    client_id: client.id,
    ...(secret ? { client_secret: secret } : {}),
    client_type: client.client_type,
    redirect_uris: redirectUrisOf(client),
    token_endpoint_auth_method: client.token_endpoint_auth_method,
    grant_types: grantTypesOf(client),
    response_types: ['code'],
    ...(client.client_name ? { client_name: client.client_name } : {}),
    ...(client.client_uri ? { client_uri: client.client_uri } : {}),
    ...(client.logo_uri ? { logo_uri: client.logo_uri } : {}),
    registration_type: client.registration_type,
    created_at: new Date(client.created_at).toISOString(),
    updated_at: new Date(client.updated_at).toISOString(),
  };
}

/** RFC 6749 §3.1.2 and RFC 8252: absolute, no fragment, no dangerous scheme; plain http only on loopback. */
function redirectUriProblem(uri: string): string | undefined {
  if (uri === '') return 'redirect URI cannot be empty';
  // eslint-disable-next-line no-control-regex
  if (/[\s\\\u0000-\u001f\u007f]/.test(uri)) return 'invalid URL format';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'invalid URL format';
  }
  if (DANGEROUS_SCHEMES.has(url.protocol)) return `scheme '${url.protocol.slice(0, -1)}' is not allowed for security reasons`;
  if (url.host === '') return 'must have scheme and host';
  if (url.username !== '' || url.password !== '') return 'credentials not allowed in redirect URI';
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) return 'HTTP scheme only allowed for localhost';
  if (uri.includes('#')) return 'fragment not allowed in redirect URI';
  return undefined;
}

function checkRedirectUris(uris: string[] | undefined, required: boolean): void {
  if (uris === undefined) {
    if (required) throw invalid('redirect_uris is required');
    return;
  }
  if (uris.length === 0) throw invalid(required ? 'redirect_uris is required' : 'redirect_uris cannot be empty');
  if (uris.length > 10) throw invalid('redirect_uris cannot exceed 10 items');
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw invalid(`invalid redirect_uri '${uri}': ${problem}`);
    // Stored comma-separated, as GoTrue does.
    if (uri.includes(',')) throw invalid(`invalid redirect_uri '${uri}': commas are not allowed`);
  }
}

function checkOptionalUrl(name: 'client_uri' | 'logo_uri', value: string | undefined): void {
  if (!value) return;
  if (value.length > 2048) throw invalid(`${name} cannot exceed 2048 characters`);
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  // Shown on the consent page: only web addresses.
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw invalid(`${name} must be a valid URL`);
}

function checkCommon(p: ClientUpdate): void {
  if (p.grant_types !== undefined) {
    if (p.grant_types.length === 0) throw invalid('grant_types cannot be empty');
    if (p.grant_types.some((g) => !GRANT_TYPES.includes(g))) throw invalid("grant_types must only contain 'authorization_code' and/or 'refresh_token'");
  }
  if (p.client_name !== undefined && p.client_name.length > 1024) throw invalid('client_name cannot exceed 1024 characters');
  checkOptionalUrl('client_uri', p.client_uri);
  checkOptionalUrl('logo_uri', p.logo_uri);
  if (p.token_endpoint_auth_method !== undefined && !(AUTH_METHODS as readonly string[]).includes(p.token_endpoint_auth_method)) {
    throw invalid(`token_endpoint_auth_method must be one of: [${AUTH_METHODS.join(' ')}]`);
  }
}

function clientTypeOf(method: string | undefined): OAuthClientType {
  return method === 'none' ? 'public' : 'confidential';
}

export async function registerClient(
  deps: Pick<Deps, 'db' | 'clock' | 'config'>,
  params: ClientRegistration,
  registrationType: 'manual' | 'dynamic',
): Promise<OAuthClientJson> {
  if (registrationType === 'dynamic' && !deps.config.oauthServer.allowDynamicRegistration) {
    throw forbidden(ErrorCode.oauth_dynamic_client_registration_disabled, 'Dynamic client registration is not enabled');
  }
  checkRedirectUris(params.redirect_uris, true);
  checkCommon(params);
  if (params.client_type !== undefined && params.client_type !== 'public' && params.client_type !== 'confidential') {
    throw invalid("client_type must be 'public' or 'confidential'");
  }
  const method = params.token_endpoint_auth_method;
  if (params.client_type && method && clientTypeOf(method) !== params.client_type) {
    throw invalid(`client_type '${params.client_type}' is inconsistent with token_endpoint_auth_method '${method}' (expected client_type '${clientTypeOf(method)}')`);
  }
  const clientType: OAuthClientType = (params.client_type as OAuthClientType | undefined) ?? clientTypeOf(method);
  const authMethod = (method ?? (clientType === 'public' ? 'none' : 'client_secret_basic')) as OAuthTokenEndpointAuthMethod;
  const secret = clientType === 'confidential' ? randomBytes(32).toString('base64url') : undefined;
  const at = deps.clock.now();
  const row = await insertOAuthClient(deps.db, {
    id: randomUUID(),
    client_secret_hash: secret ? hashClientSecret(secret) : null,
    registration_type: registrationType,
    client_type: clientType,
    token_endpoint_auth_method: authMethod,
    redirect_uris: (params.redirect_uris ?? []).join(','),
    grant_types: (params.grant_types ?? GRANT_TYPES).join(','),
    client_name: params.client_name || null,
    client_uri: params.client_uri || null,
    logo_uri: params.logo_uri || null,
    created_at: at,
    updated_at: at,
  });
  return serializeClient(row, secret);
}

/** The live client with this id, or 404 oauth_client_not_found (400 for an id that is not a UUID). */
export async function clientOrNotFound(deps: Pick<Deps, 'db'>, clientId: string): Promise<OAuthClientRow> {
  if (!isUuid(clientId)) throw invalid('invalid client_id format');
  const client = await findOAuthClient(deps.db, clientId);
  if (!client) throw notFound(ErrorCode.oauth_client_not_found, 'OAuth client not found');
  return client;
}

export async function getClient(deps: Pick<Deps, 'db'>, clientId: string): Promise<OAuthClientJson> {
  return serializeClient(await clientOrNotFound(deps, clientId));
}

export async function listClients(deps: Pick<Deps, 'db'>, page: { page: number; perPage: number }) {
  const { rows, total } = await listOAuthClients(deps.db, { limit: page.perPage, offset: (page.page - 1) * page.perPage });
  return { clients: rows.map((row) => serializeClient(row)), total };
}

export async function updateClient(deps: Pick<Deps, 'db' | 'clock'>, clientId: string, params: ClientUpdate): Promise<OAuthClientJson> {
  const client = await clientOrNotFound(deps, clientId);
  const fields = ['redirect_uris', 'grant_types', 'client_name', 'client_uri', 'logo_uri', 'token_endpoint_auth_method'] as const;
  if (fields.every((f) => params[f] === undefined)) throw invalid('No fields provided for update');
  checkRedirectUris(params.redirect_uris, false);
  checkCommon(params);
  const method = params.token_endpoint_auth_method;
  if (method !== undefined && clientTypeOf(method) !== client.client_type) {
    const valid = client.client_type === 'public' ? '[none]' : '[client_secret_basic client_secret_post]';
    throw invalid(`token_endpoint_auth_method '${method}' is not valid for client_type '${client.client_type}'; valid methods: ${valid}`);
  }
  const updated = await updateOAuthClient(deps.db, client.id, {
    ...(params.redirect_uris !== undefined ? { redirect_uris: params.redirect_uris.join(',') } : {}),
    ...(params.grant_types !== undefined ? { grant_types: params.grant_types.join(',') } : {}),
    ...(params.client_name !== undefined ? { client_name: params.client_name || null } : {}),
    ...(params.client_uri !== undefined ? { client_uri: params.client_uri || null } : {}),
    ...(params.logo_uri !== undefined ? { logo_uri: params.logo_uri || null } : {}),
    ...(method !== undefined ? { token_endpoint_auth_method: method as OAuthTokenEndpointAuthMethod } : {}),
    updated_at: deps.clock.now(),
  });
  if (!updated) throw notFound(ErrorCode.oauth_client_not_found, 'OAuth client not found');
  return serializeClient(updated);
}

/** Soft-deletes the client and ends at once everything it was given: its sessions and the consents. */
export async function deleteClient(deps: Pick<Deps, 'db' | 'clock'>, clientId: string): Promise<void> {
  const client = await clientOrNotFound(deps, clientId);
  await deps.db.transaction().execute(async (tx) => {
    if (!(await markOAuthClientDeleted(tx, client.id, deps.clock.now()))) throw notFound(ErrorCode.oauth_client_not_found, 'OAuth client not found');
    await deleteOAuthClientSessions(tx, client.id);
    await deleteClientConsents(tx, client.id);
  });
}

export async function regenerateSecret(deps: Pick<Deps, 'db' | 'clock'>, clientId: string): Promise<OAuthClientJson> {
  const client = await clientOrNotFound(deps, clientId);
  if (client.client_type !== 'confidential') throw invalid('Cannot regenerate secret for public client');
  const secret = randomBytes(32).toString('base64url');
  const updated = await updateOAuthClient(deps.db, client.id, { client_secret_hash: hashClientSecret(secret), updated_at: deps.clock.now() });
  if (!updated) throw new ApiError(404, ErrorCode.oauth_client_not_found, 'OAuth client not found');
  return serializeClient(updated, secret);
}
