// API tokens for the PowerDNS-compatible API (issue 32). A user (or an administrator over them) creates one with a
// name, an optional expiry and a scope: every zone the user may manage or listed zones, and optionally only record
// names matching patterns (`_acme-challenge.*`) and only given types (TXT). The token is shown once and kept as its
// SHA-256. A request with it acts as its owner, narrowed to the scope; the history names the token.
import { createHash, randomBytes } from 'node:crypto';
import type { Deps } from '../../deps';
import { badRequest, notFound } from '../../errors';
import { findTokenInForce, insertApiToken, listApiTokens, revokeApiToken, touchApiToken, type ApiTokenRow } from '../../queries/api-tokens';
import type { Caller } from './caller';
import { credentialOwnerInReach, validatedScope } from './credential-scope';

/** Tokens start with this, so a leaked one is recognisable (secret scanners) and never mistaken for a JWT. */
export const TOKEN_PREFIX = 'kzdns_';

export interface TokenScope {
  zoneIds: number[] | null;
  namePatterns: RegExp[] | null;
  recordTypes: string[] | null;
}

export interface ApiTokenInput {
  name: string;
  expiresAt?: Date;
  zoneIds?: number[];
  names?: string[];
  types?: string[];
}

const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** `_acme-challenge.*` → a match of whole absolute names (no trailing dot, any case); `*` spans any characters. */
export function patternRegExp(pattern: string): RegExp {
  const body = pattern.toLowerCase().replace(/\.$/, '').split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.+');
  return new RegExp(`^${body}$`);
}

export function scopeOf(row: Pick<ApiTokenRow, 'zone_ids' | 'name_patterns' | 'record_types'>): TokenScope {
  return { zoneIds: row.zone_ids, namePatterns: row.name_patterns?.map(patternRegExp) ?? null, recordTypes: row.record_types };
}

export const inScope = {
  zone: (scope: TokenScope, zoneId: number) => scope.zoneIds === null || scope.zoneIds.includes(zoneId),
  name: (scope: TokenScope, name: string) => scope.namePatterns === null || scope.namePatterns.some((p) => p.test(name.toLowerCase().replace(/\.$/, ''))),
  type: (scope: TokenScope, type: string) => scope.recordTypes === null || scope.recordTypes.includes(type.toUpperCase()),
};

const ownerInReach = (deps: Deps, caller: Caller, userId: number) => credentialOwnerInReach(deps, caller, userId, 'API tokens');

export interface ApiTokenWire {
  id: number;
  name: string;
  user_id: number;
  zones: number[] | null;
  names: string[] | null;
  types: string[] | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function serializeApiToken(row: ApiTokenRow): ApiTokenWire {
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
  return {
    id: row.id, name: row.name, user_id: row.user_id, zones: row.zone_ids, names: row.name_patterns, types: row.record_types,
    created_at: new Date(row.created_at).toISOString(), expires_at: iso(row.expires_at), last_used_at: iso(row.last_used_at), revoked_at: iso(row.revoked_at),
  };
}

export async function createApiToken(deps: Deps, caller: Caller, userId: number, input: ApiTokenInput): Promise<{ token: string; row: ApiTokenRow }> {
  const owner = await ownerInReach(deps, caller, userId);
  const now = deps.clock.now();
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) throw badRequest('expires_at must lie in the future');
  const scope = await validatedScope(deps, owner, input);
  const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const row = await insertApiToken(deps.db, {
    user_id: owner.id, name: input.name.trim(), token_hash: hashOf(token), ...scope,
    created_by: caller.userId, created_at: now, expires_at: input.expiresAt ?? null,
  });
  return { token, row };
}

export async function apiTokensOf(deps: Deps, caller: Caller, userId: number): Promise<ApiTokenRow[]> {
  await ownerInReach(deps, caller, userId);
  return listApiTokens(deps.db, userId);
}

export async function revokeApiTokenOf(deps: Deps, caller: Caller, userId: number, tokenId: number): Promise<ApiTokenRow> {
  await ownerInReach(deps, caller, userId);
  const row = await revokeApiToken(deps.db, userId, tokenId, deps.clock.now());
  if (!row) throw notFound('API token not found');
  return row;
}

export interface TokenCaller {
  caller: Caller;
  scope: TokenScope;
}

/** The caller and scope of a token in force, or undefined (unknown, revoked, expired, owner gone). */
export async function authenticateApiToken(deps: Pick<Deps, 'db' | 'clock'>, token: string, ip: string | undefined): Promise<TokenCaller | undefined> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return undefined;
  const now = deps.clock.now();
  const row = await findTokenInForce(deps.db, hashOf(token), now);
  if (!row) return undefined;
  // last_used_at to the minute: most requests of a busy client find it fresh and write nothing.
  if (!row.last_used_at || now.getTime() - new Date(row.last_used_at).getTime() >= 60_000) await touchApiToken(deps.db, row.id, now);
  return {
    caller: { userId: row.user_id, groupId: row.group_id, isAdmin: row.is_admin, sessionId: 0, ip, apiToken: { id: row.id, name: row.name } },
    scope: scopeOf(row),
  };
}
