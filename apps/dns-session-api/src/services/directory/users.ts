import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../../deps';
import { conflict, forbidden, notFound } from '../../errors';
import { findGroupById } from '../../queries/groups';
import { deleteSessionsOfUser } from '../../queries/sessions';
import { findUserById, findUserWithAccess, insertUser, updateUser, type UserChanges, type UserRow } from '../../queries/users';
import { auditUser } from '../../serialize';
import type { Caller } from '../access/caller';
import { hashPassword } from '../access/passwords';
import { assertInheritChangeAllowed, assertUserWithinOwn, permissionForPlacement } from './permission-objects';
import { assertAdmin, assertGroupAccess, OUTSIDE_SUBTREE } from './permissions';

export interface NewUser {
  gid: number;
  username: string;
  email: string;
  password: string;
  first_name: string;
  last_name: string;
  is_admin?: boolean;
  inherit_group_permissions?: boolean;
}

export interface UserUpdate {
  gid?: number;
  username?: string;
  email?: string;
  password?: string;
  first_name?: string;
  last_name?: string;
  is_admin?: boolean;
  inherit_group_permissions?: boolean;
  /** false restores a soft-deleted user. */
  deleted?: boolean;
}

const duplicateUsername = () => conflict('A user with that username already exists in that group');

/** A user the caller may read: 404 when unknown (or not in the requested deleted state), 403 outside the subtree. */
export async function getUser(deps: Deps, caller: Caller, id: number, options: { deleted: boolean }): Promise<UserRow> {
  // The caller's own row came with the session, read in this request: no second query.
  if (id === caller.userId && caller.user && !options.deleted) return caller.user;
  const found = await findUserWithAccess(deps.db, id, caller.groupId);
  if (!found || (found.deleted_at !== null) !== options.deleted) throw notFound('User not found');
  if (!found.accessible) throw forbidden(OUTSIDE_SUBTREE('user'));
  const { accessible: _accessible, ...user } = found;
  return user;
}

export async function createUser(deps: Deps, caller: Caller, input: NewUser): Promise<UserRow> {
  assertAdmin(caller, 'create users');
  const passwordHash = await hashPassword(input.password, deps.config.security.bcryptCost);
  return deps.db.transaction().execute(async (trx) => {
    const group = await findGroupById(trx, input.gid, { lock: true });
    if (!group || group.deleted_at) throw notFound('Group not found');
    await assertGroupAccess(trx, caller, group.id, 'group');
    await assertUserWithinOwn(trx, caller, await permissionForPlacement(trx, undefined, group.id, true), 'create this user');
    const now = deps.clock.now();
    const user = await insertUser(trx, {
      groupId: group.id,
      username: input.username,
      email: input.email,
      firstName: input.first_name,
      lastName: input.last_name,
      passwordHash,
      isAdmin: input.is_admin ?? false,
      inheritGroupPermissions: input.inherit_group_permissions,
      now,
    }).catch((err: unknown) => {
      throw isUniqueViolation(err) ? duplicateUsername() : err;
    });
    await deps.audit.record(trx, { actor: caller, objectType: 'user', objectId: user.id, action: 'create', before: null, after: auditUser(user) });
    return user;
  });
}

export async function updateUserById(deps: Deps, caller: Caller, id: number, input: UserUpdate): Promise<UserRow> {
  const self = id === caller.userId;
  if (!caller.isAdmin) {
    if (!self) throw forbidden('Only administrators may change other users');
    if (input.gid !== undefined || input.is_admin !== undefined || input.deleted !== undefined) {
      throw forbidden('Only administrators may change a group, the admin flag or the deleted state');
    }
  }
  if (self && (input.is_admin === false || input.deleted === true)) throw forbidden('You may not demote or delete yourself');
  // Which permission object applies limits the user: nobody chooses it for themselves (issue 38.4).
  if (input.inherit_group_permissions !== undefined && (self || !caller.isAdmin)) {
    throw forbidden('Only an administrator may choose which permission object applies to a user, and not for themselves');
  }
  const passwordHash = input.password === undefined ? undefined : await hashPassword(input.password, deps.config.security.bcryptCost);
  return deps.db.transaction().execute(async (trx) => {
    const before = await findUserById(trx, id, { lock: true });
    const restoring = input.deleted === false;
    if (!before || (before.deleted_at !== null) !== restoring) throw notFound('User not found');
    await assertGroupAccess(trx, caller, before.group_id, 'user');
    if (input.inherit_group_permissions !== undefined && input.inherit_group_permissions !== before.inherit_group_permissions) {
      await assertInheritChangeAllowed(trx, caller, before, input.inherit_group_permissions);
    }
    if (input.gid !== undefined && input.gid !== before.group_id) {
      const target = await findGroupById(trx, input.gid);
      if (!target || target.deleted_at) throw notFound('Group not found');
      await assertGroupAccess(trx, caller, target.id, 'group');
    }
    if (!self) {
      const inherits = input.inherit_group_permissions ?? before.inherit_group_permissions;
      await assertUserWithinOwn(trx, caller, await permissionForPlacement(trx, id, before.group_id, before.inherit_group_permissions), 'change this user');
      await assertUserWithinOwn(trx, caller, await permissionForPlacement(trx, id, input.gid ?? before.group_id, inherits), 'change this user');
    }
    const changes: UserChanges = {
      groupId: input.gid,
      username: input.username,
      email: input.email,
      firstName: input.first_name,
      lastName: input.last_name,
      passwordHash,
      isAdmin: input.is_admin,
      inheritGroupPermissions: input.inherit_group_permissions,
      ...(restoring ? { deletedAt: null } : {}),
    };
    const after = await updateUser(trx, id, changes, deps.clock.now()).catch((err: unknown) => {
      throw isUniqueViolation(err) ? duplicateUsername() : err;
    });
    if (!after) throw notFound('User not found');
    // A new password or group ends the user's other sessions (the caller's own stays when it is their own change).
    if (passwordHash !== undefined || input.gid !== undefined) {
      await deleteSessionsOfUser(trx, id, self ? caller.sessionId : undefined);
    }
    await deps.audit.record(trx, {
      actor: caller,
      objectType: 'user',
      objectId: id,
      action: restoring ? 'restore' : 'update',
      before: auditUser(before),
      after: auditUser(after),
    });
    return after;
  });
}

export async function deleteUser(deps: Deps, caller: Caller, id: number): Promise<UserRow> {
  assertAdmin(caller, 'delete users');
  if (id === caller.userId) throw conflict('You may not delete yourself');
  return deps.db.transaction().execute(async (trx) => {
    const before = await findUserById(trx, id, { lock: true });
    if (!before || before.deleted_at) throw notFound('User not found');
    await assertGroupAccess(trx, caller, before.group_id, 'user');
    const after = await updateUser(trx, id, { deletedAt: deps.clock.now() }, deps.clock.now());
    if (!after) throw notFound('User not found');
    await deleteSessionsOfUser(trx, id);
    await deps.audit.record(trx, { actor: caller, objectType: 'user', objectId: id, action: 'delete', before: auditUser(before), after: auditUser(after) });
    return after;
  });
}
