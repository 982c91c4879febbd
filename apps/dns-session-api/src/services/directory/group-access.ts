// What the caller may do in one group of their subtree (GET /group/<id>/access): the permission object that applies
// to them, and that object combined with Keyzone's own rules (see permission-objects.ts and permissions.ts). A
// console uses it to enable only what the API would allow; the API still checks every change itself.
import type { Deps } from '../../deps';
import { notFound } from '../../errors';
import { findGroupById } from '../../queries/groups';
import { PERMISSION_FLAGS, type PermissionFlag, type PermissionFlags } from '../../queries/permissions';
import type { Caller } from '../access/caller';
import { effectivePermission, permissionForPlacement } from './permission-objects';
import { assertGroupAccess } from './permissions';

export interface GroupAccess {
  groupId: number;
  isAdmin: boolean;
  /** which object applies: the caller's own, their group's, or none (Keyzone's rules alone) */
  source: 'user' | 'group' | 'none';
  permission: { id: number; name: string } | null;
  /** the flags of the object that applies (all of them when none does): what the caller may grant others */
  grantable: PermissionFlags;
  /** the flags combined with Keyzone's rules: what the caller may do in this group */
  allowed: PermissionFlags;
  /** the group's own fields and objects, which have rules beyond the flags (see groups.ts, permission-objects.ts) */
  group: { rename: boolean; move: boolean; dnssec_default: boolean; usable_ns: boolean; permissions: boolean; delete: boolean };
}

// Only administrators manage users and groups, and delegate zones (zone-delegations.ts).
const ADMIN_ONLY = new Set<PermissionFlag>(['group_create', 'group_write', 'group_delete', 'user_create', 'user_write', 'user_delete', 'zone_delegate']);

export async function getGroupAccess(deps: Deps, caller: Caller, groupId: number): Promise<GroupAccess> {
  const group = await findGroupById(deps.db, groupId);
  if (!group || group.deleted_at) throw notFound('Group not found');
  await assertGroupAccess(deps.db, caller, group.id, 'group');
  const applies = await effectivePermission(deps.db, caller.userId, caller.groupId);
  const grantable = Object.fromEntries(PERMISSION_FLAGS.map((f) => [f, !applies || applies[f]])) as PermissionFlags;
  const allowed = Object.fromEntries(PERMISSION_FLAGS.map((f) => [f, grantable[f] && (caller.isAdmin || !ADMIN_ONLY.has(f))])) as PermissionFlags;
  // A new user in the group gets the group's object (every right without one): never more than the caller's own.
  if (applies && allowed.user_create) {
    const newUser = await permissionForPlacement(deps.db, undefined, group.id, true);
    allowed.user_create = PERMISSION_FLAGS.every((f) => applies[f] || (newUser !== undefined && !newUser[f]));
  }
  // One's own user is changed with self_write or user_write (assertPermitted).
  allowed.self_write = grantable.self_write || grantable.user_write;
  // Nobody renames, moves, limits or sets the permissions of their own group: an administrator above it does.
  const above = group.id !== caller.groupId;
  return {
    groupId: group.id,
    isAdmin: caller.isAdmin,
    source: !applies ? 'none' : applies.user_id !== null ? 'user' : 'group',
    permission: applies ? { id: applies.id, name: applies.name } : null,
    grantable,
    allowed,
    group: {
      rename: allowed.group_write && above,
      move: allowed.group_write && above,
      dnssec_default: allowed.group_write,
      usable_ns: allowed.group_write && above,
      permissions: caller.isAdmin && above,
      delete: allowed.group_delete && above,
    },
  };
}
