// TSIG keys for Keyzone's DNS listener (issue 44). A user (or an administrator over them) creates one with a DNS
// name, an algorithm (hmac-sha256 or hmac-sha512) and a scope like an API token's: every zone the user may manage
// or listed zones, optionally only record names matching patterns and only given types, and whether it may
// transfer whole zones (AXFR/IXFR). The secret is random, shown once (base64) and kept sealed: HMAC needs the
// secret itself, so a hash would not do. Sealing is AES-256-GCM under SHA-256 of dns.yml tsig_secret_key (the
// session secret when unset), with the key's name as associated data, so a sealed secret moved to another row
// does not open. A message signed with the key acts as its owner, narrowed to the scope; the history names the key.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../../deps';
import { badRequest, conflict, notFound } from '../../errors';
import {
  findTsigKeyInForce, insertTsigKey, listTsigKeys, revokeTsigKey, touchTsigKey, type TsigKeyRow,
} from '../../queries/tsig-keys';
import type { Caller } from './caller';
import { credentialOwnerInReach, validatedScope } from './credential-scope';
import { patternRegExp, type TokenScope } from './api-tokens';

export const TSIG_ALGORITHMS = ['hmac-sha256', 'hmac-sha512'] as const;
export type TsigAlgorithm = (typeof TSIG_ALGORITHMS)[number];
const SECRET_BYTES: Record<TsigAlgorithm, number> = { 'hmac-sha256': 32, 'hmac-sha512': 64 };
const KEY_NAME = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

export interface TsigKeyInput {
  name: string;
  algorithm: TsigAlgorithm;
  zoneIds?: number[];
  names?: string[];
  types?: string[];
  allowTransfer?: boolean;
}

/** A TSIG key name as messages carry it: lowercase, no trailing dot. */
export const tsigKeyName = (name: string) => name.trim().toLowerCase().replace(/\.$/, '');

function sealingKey(secret: string): Buffer {
  return createHash('sha256').update(`keyzone tsig secrets\0${secret}`, 'utf8').digest();
}

export function sealSecret(sealKey: string, keyName: string, secret: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(sealKey), iv);
  cipher.setAAD(Buffer.from(keyName, 'utf8'));
  const body = Buffer.concat([cipher.update(secret), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
}

/** The secret, or undefined when the seal does not open (another sealing key, a tampered row). */
export function openSecret(sealKey: string, keyName: string, sealed: string): Buffer | undefined {
  const [iv, tag, body] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
  if (!iv || !tag || !body) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey(sealKey), iv);
    decipher.setAAD(Buffer.from(keyName, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]);
  } catch {
    return undefined;
  }
}

export interface TsigKeyScope extends TokenScope {
  allowTransfer: boolean;
}

const ownerInReach = (deps: Deps, caller: Caller, userId: number) => credentialOwnerInReach(deps, caller, userId, 'TSIG keys');

export interface TsigKeyWire {
  id: number;
  name: string;
  algorithm: TsigAlgorithm;
  user_id: number;
  zones: number[] | null;
  names: string[] | null;
  types: string[] | null;
  allow_transfer: boolean;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export function serializeTsigKey(row: TsigKeyRow): TsigKeyWire {
  const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
  return {
    id: row.id, name: row.name, algorithm: row.algorithm, user_id: row.user_id, zones: row.zone_ids, names: row.name_patterns, types: row.record_types,
    allow_transfer: row.allow_transfer, created_at: new Date(row.created_at).toISOString(), last_used_at: iso(row.last_used_at), revoked_at: iso(row.revoked_at),
  };
}

export async function createTsigKey(deps: Deps, caller: Caller, userId: number, input: TsigKeyInput): Promise<{ secret: string; row: TsigKeyRow }> {
  const owner = await ownerInReach(deps, caller, userId);
  const name = tsigKeyName(input.name);
  if (name.length > 253 || !KEY_NAME.test(name)) throw badRequest(`name: "${input.name}" is not a key name (DNS labels of a-z, 0-9, _ and -, e.g. lego.example.com)`);
  const scope = await validatedScope(deps, owner, input);
  const secret = randomBytes(SECRET_BYTES[input.algorithm]);
  try {
    const row = await insertTsigKey(deps.db, {
      user_id: owner.id, name, algorithm: input.algorithm, secret_sealed: sealSecret(deps.config.dns.tsigSecretKey, name, secret),
      ...scope,
      allow_transfer: input.allowTransfer ?? false, created_by: caller.userId, created_at: deps.clock.now(),
    });
    return { secret: secret.toString('base64'), row };
  } catch (err) {
    // Key names are global: a message carries only the name, so two keys in force cannot share one.
    if (isUniqueViolation(err)) throw conflict(`A TSIG key named ${name} is already in force`);
    throw err;
  }
}

export async function tsigKeysOf(deps: Deps, caller: Caller, userId: number): Promise<TsigKeyRow[]> {
  await ownerInReach(deps, caller, userId);
  return listTsigKeys(deps.db, userId);
}

export async function revokeTsigKeyOf(deps: Deps, caller: Caller, userId: number, keyId: number): Promise<TsigKeyRow> {
  await ownerInReach(deps, caller, userId);
  const row = await revokeTsigKey(deps.db, userId, keyId, deps.clock.now());
  if (!row) throw notFound('TSIG key not found');
  return row;
}

export interface TsigKeyInUse {
  name: string;
  algorithm: TsigAlgorithm;
  secret: Buffer;
  caller: Caller;
  scope: TsigKeyScope;
}

/** The key in force with this name (its secret opened, its owner as the caller), or undefined. */
export async function tsigKeyByName(deps: Pick<Deps, 'db' | 'clock' | 'config'>, keyName: string, ip: string | undefined): Promise<TsigKeyInUse | undefined> {
  const name = tsigKeyName(keyName);
  if (name.length === 0 || name.length > 253) return undefined;
  const row = await findTsigKeyInForce(deps.db, name);
  if (!row) return undefined;
  const secret = openSecret(deps.config.dns.tsigSecretKey, row.name, row.secret_sealed);
  if (!secret) return undefined;
  const now = deps.clock.now();
  if (!row.last_used_at || now.getTime() - new Date(row.last_used_at).getTime() >= 60_000) await touchTsigKey(deps.db, row.id, now);
  return {
    name: row.name, algorithm: row.algorithm, secret,
    caller: { userId: row.user_id, groupId: row.group_id, isAdmin: row.is_admin, sessionId: 0, ip, tsigKey: { id: row.id, name: row.name } },
    scope: {
      zoneIds: row.zone_ids, namePatterns: row.name_patterns?.map(patternRegExp) ?? null, recordTypes: row.record_types, allowTransfer: row.allow_transfer,
    },
  };
}
