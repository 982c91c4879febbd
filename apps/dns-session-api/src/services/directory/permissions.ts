import { forbidden } from '../../errors';
import type { Db } from '../../queries/db';
import { isInSubtree } from '../../queries/groups';
import type { Caller } from '../access/caller';

// The permission model (NicTool stores permissions but never checks them; here they are enforced):
// - a user reads and writes only objects whose group is their own group or lies below it;
// - only is_admin users create or delete users and groups, move users between groups, grant is_admin,
//   or change another user's record; a non-admin may edit their own name, email and password.
// Unknown ids are 404 before any permission check; a known object outside the caller's subtree is 403.

export const OUTSIDE_SUBTREE = (what: string) => `You may not access this ${what}: it belongs to a group outside yours`;

/** Throws 403 unless `groupId` is the caller's group or one of its descendants. */
export async function assertGroupAccess(db: Db, caller: Caller, groupId: number, what = 'object'): Promise<void> {
  if (groupId === caller.groupId) return;
  if (!(await isInSubtree(db, caller.groupId, groupId))) {
    throw forbidden(OUTSIDE_SUBTREE(what));
  }
}

export function assertAdmin(caller: Caller, action: string): void {
  if (!caller.isAdmin) throw forbidden(`Only administrators may ${action}`);
}

export function canAccessGroup(db: Db, caller: Caller, groupId: number): Promise<boolean> {
  return groupId === caller.groupId ? Promise.resolve(true) : isInSubtree(db, caller.groupId, groupId);
}
