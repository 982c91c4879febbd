// NicTool's permission objects (issue 38.4), mapped onto Keyzone's model. Keyzone's own rules come first and
// are never widened: a user reaches only their group's subtree, and only administrators manage users and groups.
// A permission object can only take rights away within that:
// - the object that applies to a user is their own when they have one and inherit_group_permissions is false,
//   else their group's; with neither, Keyzone's rules alone apply (nothing is taken away);
// - its create/write/delete flags for zones, zone records, nameservers, users and groups are checked on every
//   such change through the API (the routes name the flags they need), self_write (or user.write) on a change
//   of one's own user;
// - a group's usable_ns limits which nameservers of the groups above it its zones may use;
// - zone_delegate is needed to allow a zone of another group above or below a zone (POST/DELETE
//   /zone/<id>/delegation, services/zones/zone-delegations.ts); zonerecord_delegate and a user's own
//   nameserver.usable are kept and shown, not enforced (Keyzone has no delegation of single records across groups).
// An object limits the users it applies to, so nobody writes the one that applies to themselves or their own
// group: a group's is written by an administrator above it, a user's by an administrator of a group at or above
// theirs (not the user), and no change (a flag granted, an object deleted, a user switched to the other object)
// may give anyone a right that its writer's own object does not have.
import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../../deps';
import { badRequest, conflict, forbidden, notFound } from '../../errors';
import type { Db } from '../../queries/db';
import { findSubtreeGroupIds } from '../../queries/group-tree';
import { findGroupById, findGroupChain, updateGroup } from '../../queries/groups';
import { findLiveNameserversByIds, type NameserverRow } from '../../queries/nameservers';
import {
  findLivePermissionsInGroups, findLivePermissionsOf, findPermissionById, insertPermission, markPermissionDeleted,
  PERMISSION_FLAGS, updatePermissionRow, type PermissionFlag, type PermissionFlags, type PermissionRow,
} from '../../queries/permissions';
import { findUserById, updateUser } from '../../queries/users';
import { serializeGroup, serializePermission } from '../../serialize';
import type { Caller } from '../access/caller';
import { assertAdmin, assertGroupAccess } from './permissions';

export type { PermissionFlag } from '../../queries/permissions';

/** The object that applies to a user, or undefined when none does (Keyzone's rules alone). */
export async function effectivePermission(db: Db, userId: number, groupId: number): Promise<PermissionRow | undefined> {
  const rows = await findLivePermissionsOf(db, userId, groupId);
  const own = rows.find((r) => r.user_id === userId);
  if (own && own.user_inherits === false) return own;
  return rows.find((r) => r.group_id === groupId);
}

const NOUNS: Record<string, string> = { group: 'groups', user: 'users', nameserver: 'nameservers', zone: 'zones', zonerecord: 'zone records' };
const VERBS: Record<string, string> = { create: 'create', write: 'change', delete: 'delete', delegate: 'delegate' };

function actionText(flag: PermissionFlag): string {
  if (flag === 'self_write') return 'change your own user';
  const at = flag.lastIndexOf('_');
  return `${VERBS[flag.slice(at + 1)]} ${NOUNS[flag.slice(0, at)]}`;
}

/**
 * 403 unless the permission object that applies to the caller (if any) has every flag. self_write is also met by
 * user_write (an administrator who may change users may change themselves).
 */
export async function assertPermitted(db: Db, caller: Caller, flags: readonly PermissionFlag[]): Promise<void> {
  if (flags.length === 0) return;
  const applies = await effectivePermission(db, caller.userId, caller.groupId);
  if (!applies) return;
  for (const flag of flags) {
    if (applies[flag] || (flag === 'self_write' && applies.user_write)) continue;
    const whose = applies.user_id !== null ? 'your own permissions' : 'your group\'s permissions';
    throw forbidden(`You may not ${actionText(flag)}: ${whose} (permission ${applies.id}${applies.name ? ` "${applies.name}"` : ''}) do not allow it`);
  }
}

/**
 * The nameservers a zone of `groupId` is given: one of a group above it must be in the usable_ns of every group
 * from the zone's up to (not including) the nameserver's, where one is set (issue 38.4). The caller's own reach
 * was checked before (the tree rule).
 */
export async function assertUsableNsAllow(db: Db, groupId: number, nameservers: readonly Pick<NameserverRow, 'id' | 'group_id' | 'name'>[]): Promise<void> {
  if (nameservers.every((ns) => ns.group_id === groupId)) return;
  const chain = await findGroupChain(db, groupId);
  for (const ns of nameservers) {
    const group = refusingGroup(chain, ns);
    if (group !== undefined) throw forbidden(`Group ${group} may not use nameserver ${ns.name} (${ns.id}): it is not in the group's usable_ns`);
  }
}

/** Whether usable_ns lets a zone of `groupId` use the nameserver (the same rule, as a test: a zone file's NS records). */
export async function usableNsAllows(db: Db, groupId: number, ns: Pick<NameserverRow, 'id' | 'group_id'>): Promise<boolean> {
  return ns.group_id === groupId || refusingGroup(await findGroupChain(db, groupId), ns) === undefined;
}

/** The first group from the zone's upwards, below the nameserver's, whose usable_ns leaves the nameserver out. */
function refusingGroup(chain: ReadonlyArray<{ id: number; usable_ns: number[] | null }>, ns: Pick<NameserverRow, 'id' | 'group_id'>): number | undefined {
  const owner = chain.findIndex((g) => g.id === ns.group_id);
  for (let i = 0; i < owner; i++) {
    const group = chain[i]!;
    if (group.usable_ns !== null && !group.usable_ns.includes(ns.id)) return group.id;
  }
  return undefined;
}

/** usable_ns for a group: distinct ids of live nameservers of the groups above it (its own are always usable). */
async function checkUsableNs(db: Db, parentId: number | null, ids: readonly number[]): Promise<number[]> {
  const distinct = [...new Set(ids)].sort((a, b) => a - b);
  if (distinct.length === 0) return distinct;
  const above = parentId === null ? [] : (await findGroupChain(db, parentId)).map((g) => g.id);
  const found = await findLiveNameserversByIds(db, distinct);
  const bad = distinct.filter((id) => !found.some((ns) => ns.id === id && above.includes(ns.group_id)));
  if (bad.length) {
    throw badRequest(`usable_ns may list only live nameservers of the groups above the group; not: ${bad.join(', ')}`);
  }
  return distinct;
}

/** The usable_ns of a new or moved group, checked against the groups above it (null: every nameserver above). */
export async function usableNsForGroup(db: Db, parentId: number | null, ids: readonly number[] | null | undefined): Promise<number[] | null | undefined> {
  return ids === undefined || ids === null ? ids : checkUsableNs(db, parentId, ids);
}

export interface PermissionInput {
  name?: string | null;
  inherit?: boolean | null;
  self_write?: boolean;
  group?: { id?: number; create?: boolean; write?: boolean; delete?: boolean };
  user?: { id?: number; create?: boolean; write?: boolean; delete?: boolean };
  nameserver?: { usable?: number[]; create?: boolean; write?: boolean; delete?: boolean };
  zone?: { create?: boolean; write?: boolean; delete?: boolean; delegate?: boolean };
  zonerecord?: { create?: boolean; write?: boolean; delete?: boolean; delegate?: boolean };
}

/** The flags an input gives; those it leaves out keep `base`'s value (a change), or are false (a new object, as NicTool). */
function flagsOf(input: PermissionInput, base?: PermissionFlags): PermissionFlags {
  const out = {} as PermissionFlags;
  for (const flag of PERMISSION_FLAGS) {
    let given: unknown;
    if (flag === 'self_write') given = input.self_write;
    else {
      const at = flag.lastIndexOf('_');
      given = (input[flag.slice(0, at) as keyof PermissionInput] as Record<string, unknown> | undefined)?.[flag.slice(at + 1)];
    }
    out[flag] = typeof given === 'boolean' ? given : (base?.[flag] ?? false);
  }
  return out;
}

/** The flags of an object, or all of them when none applies (Keyzone's rules alone). */
function flagsAllowed(row: PermissionRow | undefined): Set<PermissionFlag> {
  return new Set(PERMISSION_FLAGS.filter((f) => !row || row[f]));
}

/** 403 when a change gives someone flags that the caller's own object (if any) does not have. */
async function assertWithinOwn(db: Db, caller: Caller, before: PermissionRow | undefined, after: PermissionRow | undefined, what: string): Promise<void> {
  const mine = await effectivePermission(db, caller.userId, caller.groupId);
  if (!mine) return;
  const had = flagsAllowed(before);
  const widened = [...flagsAllowed(after)].filter((f) => !had.has(f) && !mine[f]);
  if (widened.length) throw forbidden(`You may not ${what}: it would allow what your own permissions do not: ${widened.join(', ')}`);
}

/**
 * The object that applies to a user placed in `groupId`: their own one when they have one and do not inherit, else
 * the group's (a new user, `userId` undefined, has none of their own).
 */
export async function permissionForPlacement(db: Db, userId: number | undefined, groupId: number, inherits: boolean): Promise<PermissionRow | undefined> {
  const rows = await findLivePermissionsOf(db, userId ?? 0, groupId);
  const own = userId === undefined ? undefined : rows.find((r) => r.user_id === userId);
  if (own && !inherits) return own;
  return rows.find((r) => r.group_id === groupId);
}

/**
 * 403 when a user the caller creates, moves or changes has (or would have) rights the caller's own object takes
 * away: otherwise an administrator without zone_delete could make a user in a group without an object (all rights),
 * move the zone there and delete it as that user, or set the password of a user who may do more and sign in as them.
 */
export async function assertUserWithinOwn(db: Db, caller: Caller, applies: PermissionRow | undefined, what: string): Promise<void> {
  const mine = await effectivePermission(db, caller.userId, caller.groupId);
  if (!mine) return;
  const beyond = [...flagsAllowed(applies)].filter((f) => !mine[f]);
  if (beyond.length === 0) return;
  const where = applies ? `permission ${applies.id}` : 'no permission object: every right';
  throw forbidden(`You may not ${what}: that user may do what your own permissions do not (${where}: ${beyond.join(', ')}); ` +
    'give the user or their group a permission object within yours first');
}

/**
 * A change of a user's inherit_group_permissions (an administrator's, not their own): it switches between the
 * user's object and the group's, and may not widen the user's rights beyond the writer's own.
 */
export async function assertInheritChangeAllowed(db: Db, caller: Caller, user: { id: number; group_id: number; inherit_group_permissions: boolean }, inherit: boolean): Promise<void> {
  const rows = await findLivePermissionsOf(db, user.id, user.group_id);
  const own = rows.find((r) => r.user_id === user.id);
  const group = rows.find((r) => r.group_id === user.group_id);
  const pick = (inherits: boolean) => (own && !inherits ? own : group);
  await assertWithinOwn(db, caller, pick(user.inherit_group_permissions), pick(inherit), 'change which permissions apply to this user');
}

/** A permission object the caller may read: 404 unknown (or not in the asked deleted state), 403 outside the subtree. */
export async function getPermission(deps: Deps, caller: Caller, id: number, options: { deleted: boolean }): Promise<PermissionRow> {
  const row = await findPermissionById(deps.db, id);
  if (!row || (row.deleted_at !== null) !== options.deleted) throw notFound('Permission not found');
  await assertGroupAccess(deps.db, caller, row.owner_group_id, 'permission');
  return row;
}

/** The objects of a group (default: the caller's) and of its users, optionally of its whole subtree. */
export async function listPermissions(
  deps: Deps, caller: Caller, query: { gid?: number; include_subgroups: boolean; deleted: boolean },
): Promise<PermissionRow[]> {
  const root = query.gid ?? caller.groupId;
  await assertGroupAccess(deps.db, caller, root, 'group');
  const groups = query.include_subgroups ? await findSubtreeGroupIds(deps.db, root) : [root];
  return findLivePermissionsInGroups(deps.db, groups, query.deleted);
}

/** 403 unless the caller may write an object about this group or user (see the rules at the top). */
async function assertMayManage(db: Db, caller: Caller, target: { groupId: number; userId: number | null }): Promise<void> {
  assertAdmin(caller, 'manage permissions');
  await assertGroupAccess(db, caller, target.groupId, 'group');
  if (target.userId === null && target.groupId === caller.groupId) {
    throw forbidden('Only an administrator of a group above yours may set your group\'s permissions');
  }
  if (target.userId === caller.userId) throw forbidden('You may not set your own permissions');
}

/**
 * POST /permission: a user's object when user.id is given (group.id, if given, must be the user's group), else
 * the group's (group.id). Flags left out are false, as in NicTool; none may exceed the caller's own object.
 * A user's object applies at once unless `inherit` is true (NicTool: the user's inherit_group_permissions);
 * a group's `nameserver.usable` is the group's usable_ns.
 */
export async function createPermission(deps: Deps, caller: Caller, input: PermissionInput): Promise<PermissionRow> {
  const userId = input.user?.id;
  const groupIdGiven = input.group?.id;
  if (userId === undefined && groupIdGiven === undefined) throw badRequest('Give user.id for a user\'s permissions or group.id for a group\'s');
  return deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    let groupId: number;
    if (userId !== undefined) {
      const user = await findUserById(trx, userId, { lock: true });
      if (!user || user.deleted_at) throw notFound('User not found');
      if (groupIdGiven !== undefined && groupIdGiven !== user.group_id) throw badRequest(`user ${userId} is not in group ${groupIdGiven}`);
      groupId = user.group_id;
    } else {
      const group = await findGroupById(trx, groupIdGiven!, { lock: true });
      if (!group || group.deleted_at) throw notFound('Group not found');
      groupId = group.id;
    }
    await assertMayManage(trx, caller, { groupId, userId: userId ?? null });
    const flags = flagsOf(input);
    const mine = await effectivePermission(trx, caller.userId, caller.groupId);
    const exceeded = mine ? PERMISSION_FLAGS.filter((f) => flags[f] && !mine[f]) : [];
    if (exceeded.length) throw forbidden(`You may not grant what your own permissions do not allow: ${exceeded.join(', ')}`);
    let usable: number[] = [];
    if (userId === undefined && input.nameserver?.usable !== undefined) {
      const group = (await findGroupById(trx, groupId))!;
      const before = serializeGroup(group);
      const after = await updateGroup(trx, groupId, { usableNs: await checkUsableNs(trx, group.parent_id, input.nameserver.usable) }, now);
      await deps.audit.record(trx, { actor: caller, objectType: 'group', objectId: groupId, action: 'update', before, after: serializeGroup(after!) });
    } else if (userId !== undefined) {
      usable = [...new Set(input.nameserver?.usable ?? [])];
    }
    const inherit = input.inherit ?? userId === undefined;
    const id = await insertPermission(trx, {
      group_id: userId === undefined ? groupId : null, user_id: userId ?? null, name: input.name ?? '', inherit, usable_ns: usable, ...flags,
    }, now).catch((err: unknown) => {
      throw isUniqueViolation(err) ? conflict(`That ${userId === undefined ? 'group' : 'user'} already has permissions: delete them first`) : err;
    });
    if (userId !== undefined) await updateUser(trx, userId, { inheritGroupPermissions: inherit }, now);
    const row = (await findPermissionById(trx, id))!;
    await deps.audit.record(trx, { actor: caller, objectType: 'permission', objectId: id, action: 'create', before: null, after: serializePermission(row) });
    return row;
  });
}

/**
 * PUT /permission/<id> (NicTool HEAD): name, flags, `inherit` (a user's object: the user's inherit_group_permissions)
 * and `nameserver.usable` change; what is left out stays. The object's group or user cannot change. The same rules
 * as for a new object: nobody changes the one that limits them, nor gives rights their own object lacks.
 */
export async function updatePermission(deps: Deps, caller: Caller, id: number, input: PermissionInput): Promise<PermissionRow> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await findPermissionById(trx, id, { lock: true });
    if (!row || row.deleted_at) throw notFound('Permission not found');
    if ((input.user?.id !== undefined && input.user.id !== row.user_id) || (input.group?.id !== undefined && input.group.id !== row.owner_group_id)) {
      throw badRequest('The group or user of a permission object cannot change: delete it and create another');
    }
    await assertMayManage(trx, caller, { groupId: row.owner_group_id, userId: row.user_id });
    const now = deps.clock.now();
    const flags = flagsOf(input, row);
    await assertWithinOwn(trx, caller, row, { ...row, ...flags }, 'change these permissions');
    let usable: number[] | undefined;
    if (row.user_id === null && input.nameserver?.usable !== undefined) {
      const group = (await findGroupById(trx, row.owner_group_id, { lock: true }))!;
      const after = await updateGroup(trx, group.id, { usableNs: await checkUsableNs(trx, group.parent_id, input.nameserver.usable) }, now);
      await deps.audit.record(trx, { actor: caller, objectType: 'group', objectId: group.id, action: 'update', before: serializeGroup(group), after: serializeGroup(after!) });
    } else if (row.user_id !== null && input.nameserver?.usable !== undefined) {
      usable = [...new Set(input.nameserver.usable)];
    }
    let inherit: boolean | undefined;
    if (typeof input.inherit === 'boolean') {
      if (row.user_id === null) inherit = input.inherit;
      else {
        const user = (await findUserById(trx, row.user_id, { lock: true }))!;
        if (input.inherit !== user.inherit_group_permissions) {
          await assertInheritChangeAllowed(trx, caller, user, input.inherit);
          await updateUser(trx, user.id, { inheritGroupPermissions: input.inherit }, now);
        }
      }
    }
    await updatePermissionRow(trx, id, { ...flags, ...(input.name !== undefined ? { name: input.name ?? '' } : {}), inherit, usable_ns: usable }, now);
    const after = (await findPermissionById(trx, id))!;
    await deps.audit.record(trx, { actor: caller, objectType: 'permission', objectId: id, action: 'update', before: serializePermission(row), after: serializePermission(after) });
    return after;
  });
}

/** DELETE /permission/<id> (soft): the group's or user's rights are Keyzone's alone again (a group keeps its usable_ns). */
export async function deletePermission(deps: Deps, caller: Caller, id: number): Promise<PermissionRow> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await findPermissionById(trx, id);
    if (!row || row.deleted_at) throw notFound('Permission not found');
    await assertMayManage(trx, caller, { groupId: row.owner_group_id, userId: row.user_id });
    // What applies once it is gone: a user's falls back to the group's object, a group's to Keyzone's rules alone.
    const user = row.user_id !== null ? await findUserById(trx, row.user_id) : undefined;
    const applied = row.user_id === null || row.user_inherits === false ? row : undefined;
    const fallback = user ? await findLivePermissionsOf(trx, user.id, user.group_id).then((rows) => rows.find((r) => r.group_id === user.group_id)) : undefined;
    await assertWithinOwn(trx, caller, applied ?? fallback, fallback, 'delete these permissions');
    if (!(await markPermissionDeleted(trx, id, deps.clock.now()))) throw notFound('Permission not found');
    const after = (await findPermissionById(trx, id))!;
    await deps.audit.record(trx, { actor: caller, objectType: 'permission', objectId: id, action: 'delete', before: serializePermission(row), after: serializePermission(after) });
    return after;
  });
}
