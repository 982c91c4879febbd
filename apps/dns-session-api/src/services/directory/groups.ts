import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../../deps';
import { badRequest, conflict, forbidden, notFound } from '../../errors';
import { findSubtreeGroupIds } from '../../queries/group-tree';
import { countLiveMembers, findGroupById, insertGroup, isInSubtree, listGroupsByIds, listSubgroups, updateGroup, type GroupRow } from '../../queries/groups';
import { findPermissionById, insertPermission, PERMISSION_FLAGS, type PermissionFlags } from '../../queries/permissions';
import { insertUser, listUsersInGroup, listUsersInGroups, type UserRow } from '../../queries/users';
import { serializeGroup, serializePermission, serializeUser } from '../../serialize';
import { hashPassword } from '../access/passwords';
import type { Caller } from '../access/caller';
import { effectivePermission, usableNsForGroup } from './permission-objects';
import { assertAdmin, assertGroupAccess } from './permissions';

export interface GroupUpdate {
  name?: string;
  parent_gid?: number;
  /** false restores a soft-deleted group. */
  deleted?: boolean;
  dnssec_default?: boolean;
  /** NicTool's usable_ns (null: every nameserver above); only an administrator above the group sets it */
  usable_ns?: number[] | null;
}

// Logins are user@group, so live group names are unique service-wide (case-insensitively).
const duplicateName = () => conflict('A group with that name already exists (group names are unique: logins use them)');

export async function getGroup(deps: Deps, caller: Caller, id: number, options: { deleted: boolean }): Promise<GroupRow> {
  const group = await findGroupById(deps.db, id);
  if (!group || (group.deleted_at !== null) !== options.deleted) throw notFound('Group not found');
  await assertGroupAccess(deps.db, caller, group.id, 'group');
  return group;
}

/** The users of a live group the caller may read (`deleted`: the deleted ones instead). */
export async function listGroupUsers(deps: Deps, caller: Caller, groupId: number, options: { deleted: boolean }): Promise<UserRow[]> {
  const group = await getGroup(deps, caller, groupId, { deleted: false });
  return listUsersInGroup(deps.db, group.id, options.deleted);
}

/**
 * GET /user?gid=: the users of a group the caller may read, with `includeSubgroups` those of its whole
 * subtree too (NicTool's include_subgroups).
 */
export async function listUsersOfGroup(
  deps: Deps, caller: Caller, groupId: number, options: { deleted: boolean; includeSubgroups: boolean },
): Promise<UserRow[]> {
  const group = await getGroup(deps, caller, groupId, { deleted: false });
  if (!options.includeSubgroups) return listUsersInGroup(deps.db, group.id, options.deleted);
  return listUsersInGroups(deps.db, await findSubtreeGroupIds(deps.db, group.id), options.deleted);
}

/**
 * GET /group: the direct subgroups of `parentGid` (default: the caller's group itself), or with
 * `includeSubgroups` every group below it; `name` narrows to one name (any case).
 */
export async function listGroups(
  deps: Deps, caller: Caller, options: { parentGid?: number; name?: string; deleted: boolean; includeSubgroups: boolean },
): Promise<GroupRow[]> {
  if (options.parentGid === undefined && !options.includeSubgroups) {
    const own = await getGroup(deps, caller, caller.groupId, { deleted: false });
    const matches = (options.name === undefined || own.name.toLowerCase() === options.name.toLowerCase()) && !options.deleted;
    return matches ? [own] : [];
  }
  const parent = await getGroup(deps, caller, options.parentGid ?? caller.groupId, { deleted: false });
  const ids = options.includeSubgroups
    ? (await findSubtreeGroupIds(deps.db, parent.id)).filter((id) => id !== parent.id)
    : (await listSubgroups(deps.db, parent.id, options.deleted)).map((g) => g.id);
  return listGroupsByIds(deps.db, ids, { deleted: options.deleted, name: options.name });
}

/** The direct subgroups of a live group the caller may read (`deleted`: the deleted ones instead). */
export async function listGroupChildren(deps: Deps, caller: Caller, groupId: number, options: { deleted: boolean }): Promise<GroupRow[]> {
  const group = await getGroup(deps, caller, groupId, { deleted: false });
  return listSubgroups(deps.db, group.id, options.deleted);
}

export interface FirstAdmin {
  username: string;
  email: string;
  password: string;
  first_name: string;
  last_name: string;
}

/**
 * A top-level group (no parent) and its first administrator, in one transaction (issue 14). Only an admin of a
 * top-level group may do this. Permissions follow the group tree, so nobody above could manage the new group:
 * it comes with the admin who will, or (NicTool's request, `{parent_gid: 0, name}`, issue 38) without one, and
 * then nobody manages it until the CLI's create-user adds an administrator to it.
 */
export async function createTopLevelGroup(
  deps: Deps, caller: Caller, input: { name: string; admin?: FirstAdmin; usable_ns?: number[] | null },
): Promise<{ group: GroupRow; admin?: UserRow }> {
  assertAdmin(caller, 'create groups');
  const first = input.admin;
  const passwordHash = first ? await hashPassword(first.password, deps.config.security.bcryptCost) : undefined;
  return deps.db.transaction().execute(async (trx) => {
    const own = await findGroupById(trx, caller.groupId);
    if (!own || own.parent_id !== null) throw forbidden('Only an admin of a top-level group may create top-level groups');
    const now = deps.clock.now();
    // No group is above a top-level one: its usable_ns can only be empty.
    const usableNs = await usableNsForGroup(trx, null, input.usable_ns);
    const group = await insertGroup(trx, { parentId: null, name: input.name, usableNs, now }).catch((err: unknown) => {
      throw isUniqueViolation(err) ? duplicateName() : err;
    });
    await deps.audit.record(trx, { actor: caller, objectType: 'group', objectId: group.id, action: 'create', before: null, after: serializeGroup(group) });
    if (!first || !passwordHash) return { group };
    const admin = await insertUser(trx, {
      groupId: group.id, username: first.username, email: first.email, firstName: first.first_name,
      lastName: first.last_name, passwordHash, isAdmin: true, now,
    });
    await deps.audit.record(trx, { actor: caller, objectType: 'user', objectId: admin.id, action: 'create', before: null, after: serializeUser(admin) });
    return { group, admin };
  });
}

/** Groups are created below a group in the caller's subtree (top-level ones: createTopLevelGroup). */
export async function createGroup(deps: Deps, caller: Caller, input: { name: string; parent_gid: number; usable_ns?: number[] | null }): Promise<GroupRow> {
  assertAdmin(caller, 'create groups');
  return deps.db.transaction().execute(async (trx) => {
    const parent = await findGroupById(trx, input.parent_gid, { lock: true });
    if (!parent || parent.deleted_at) throw notFound('Parent group not found');
    await assertGroupAccess(trx, caller, parent.id, 'group');
    const usableNs = await usableNsForGroup(trx, parent.id, input.usable_ns);
    const group = await insertGroup(trx, { parentId: parent.id, name: input.name, usableNs, now: deps.clock.now() }).catch((err: unknown) => {
      throw isUniqueViolation(err) ? duplicateName() : err;
    });
    await deps.audit.record(trx, { actor: caller, objectType: 'group', objectId: group.id, action: 'create', before: null, after: serializeGroup(group) });
    // A group without a permission object allows everything: one made by an administrator whose own object takes
    // rights away starts with that administrator's rights, so its users can never do more than its maker.
    const mine = await effectivePermission(trx, caller.userId, caller.groupId);
    if (mine) {
      const flags = Object.fromEntries(PERMISSION_FLAGS.map((f) => [f, mine[f]])) as PermissionFlags;
      const id = await insertPermission(trx, { group_id: group.id, user_id: null, name: '', inherit: true, usable_ns: [], ...flags }, deps.clock.now());
      await deps.audit.record(trx, { actor: caller, objectType: 'permission', objectId: id, action: 'create', before: null, after: serializePermission((await findPermissionById(trx, id))!) });
    }
    return group;
  });
}

export async function updateGroupById(deps: Deps, caller: Caller, id: number, input: GroupUpdate): Promise<GroupRow> {
  assertAdmin(caller, 'change groups');
  return deps.db.transaction().execute(async (trx) => {
    const before = await findGroupById(trx, id, { lock: true });
    const restoring = input.deleted === false;
    if (!before || (before.deleted_at !== null) !== restoring) throw notFound('Group not found');
    await assertGroupAccess(trx, caller, before.id, 'group');
    // The name is how logins find the group's users: only an admin above the group may change it.
    if (input.name !== undefined && input.name !== before.name && id === caller.groupId) {
      throw forbidden('Only an admin of the parent group may rename this group');
    }
    if (input.parent_gid !== undefined && input.parent_gid !== (before.parent_id ?? 0)) {
      // Moving a group: not the caller's own group (it would leave their subtree), never below itself.
      if (id === caller.groupId) throw badRequest('You may not move your own group');
      const parent = await findGroupById(trx, input.parent_gid, { lock: true });
      if (!parent || parent.deleted_at) throw notFound('Parent group not found');
      await assertGroupAccess(trx, caller, parent.id, 'group');
      if (await isInSubtree(trx, id, parent.id)) throw badRequest('A group cannot move below itself');
    }
    // usable_ns limits the group's zones: set from above, never by the group's own administrators.
    if (input.usable_ns !== undefined && id === caller.groupId) {
      throw forbidden('Only an admin of a group above this one may set its usable_ns');
    }
    const usableNs = await usableNsForGroup(trx, input.parent_gid ?? before.parent_id, input.usable_ns);
    const after = await updateGroup(
      trx,
      id,
      { name: input.name, parentId: input.parent_gid, dnssecDefault: input.dnssec_default, usableNs, ...(restoring ? { deletedAt: null } : {}) },
      deps.clock.now(),
    ).catch((err: unknown) => {
      throw isUniqueViolation(err) ? duplicateName() : err;
    });
    if (!after) throw notFound('Group not found');
    await deps.audit.record(trx, {
      actor: caller,
      objectType: 'group',
      objectId: id,
      action: restoring ? 'restore' : 'update',
      before: serializeGroup(before),
      after: serializeGroup(after),
    });
    return after;
  });
}

/**
 * Soft delete; refused (409) while the group holds live subgroups, users, zones or nameservers (NicTool HEAD's
 * messages), and for the caller's own group. The group row is locked, so a concurrent insert that locks it too
 * (createUser, createGroup) waits and then sees the group deleted.
 */
export async function deleteGroup(deps: Deps, caller: Caller, id: number): Promise<GroupRow> {
  assertAdmin(caller, 'delete groups');
  return deps.db.transaction().execute(async (trx) => {
    const before = await findGroupById(trx, id, { lock: true });
    if (!before || before.deleted_at) throw notFound('Group not found');
    await assertGroupAccess(trx, caller, before.id, 'group');
    if (id === caller.groupId) throw conflict('Cannot delete your own group');
    const members = await countLiveMembers(trx, id);
    if (members.subgroups > 0) throw conflict('Cannot delete group: active subgroups still exist.');
    if (members.users > 0) throw conflict('Cannot delete group: active users still exist.');
    if (members.zones > 0) throw conflict('Cannot delete group: active zones still exist.');
    if (members.nameservers > 0) throw conflict('Cannot delete group: active nameservers still exist.');
    const after = await updateGroup(trx, id, { deletedAt: deps.clock.now() }, deps.clock.now());
    if (!after) throw notFound('Group not found');
    await deps.audit.record(trx, { actor: caller, objectType: 'group', objectId: id, action: 'delete', before: serializeGroup(before), after: serializeGroup(after) });
    return after;
  });
}
