// What API tokens and TSIG keys share: both belong to a user (managed by that user or an administrator above
// them) and carry the same scope of zones, name patterns and record types, checked the same way when created.
import type { Deps } from '../../deps';
import { badRequest, notFound } from '../../errors';
import { isRecordType } from '../../dns';
import { findUserById } from '../../queries/users';
import { findZoneById } from '../../queries/zones';
import type { Caller } from './caller';
import { assertAdmin, assertGroupAccess } from '../directory/permissions';

const PATTERN = /^[a-z0-9_*-]+(\.[a-z0-9_*-]+)*$/;

export interface CredentialScopeInput {
  zoneIds?: number[];
  names?: string[];
  types?: string[];
}

/** The scope as stored: each list without repeats, or null for "any". */
export interface StoredScope {
  zone_ids: number[] | null;
  name_patterns: string[] | null;
  record_types: string[] | null;
}

/** The owner, as the caller a credential acts for (their group and rights, re-read now); `what` names the credential. */
export async function credentialOwnerInReach(deps: Deps, caller: Caller, userId: number, what: string): Promise<{ id: number; group_id: number }> {
  const user = await findUserById(deps.db, userId);
  if (!user || user.deleted_at) throw notFound('User not found');
  if (userId !== caller.userId) {
    assertAdmin(caller, `manage other users' ${what}`);
    await assertGroupAccess(deps.db, caller, user.group_id, 'user');
  }
  return user;
}

/** Checks a requested scope (patterns, types, and that each listed zone is the owner's to manage now). */
export async function validatedScope(deps: Deps, owner: { id: number; group_id: number }, input: CredentialScopeInput): Promise<StoredScope> {
  const patterns = input.names?.map((n) => n.trim().toLowerCase().replace(/\.$/, ''));
  const badPattern = patterns?.find((p) => !PATTERN.test(p));
  if (badPattern !== undefined) throw badRequest(`names: "${badPattern}" is not a name pattern (labels of a-z, 0-9, _, - and *, e.g. _acme-challenge.*)`);
  const types = input.types?.map((t) => t.trim().toUpperCase());
  const badType = types?.find((t) => !isRecordType(t));
  if (badType !== undefined) throw badRequest(`types: ${badType} is not a record type this API serves`);
  // The owner's reach is checked again on every use; here a zone they cannot manage is refused at once.
  const ownerCaller: Caller = { userId: owner.id, groupId: owner.group_id, isAdmin: false, sessionId: 0 };
  for (const zoneId of input.zoneIds ?? []) {
    const zone = await findZoneById(deps.db, zoneId);
    if (!zone || zone.deleted_at) throw badRequest(`zones: zone ${zoneId} does not exist`);
    await assertGroupAccess(deps.db, ownerCaller, zone.group_id, 'zone');
  }
  return {
    zone_ids: input.zoneIds?.length ? [...new Set(input.zoneIds)] : null,
    name_patterns: patterns?.length ? [...new Set(patterns)] : null,
    record_types: types?.length ? [...new Set(types)] : null,
  };
}
