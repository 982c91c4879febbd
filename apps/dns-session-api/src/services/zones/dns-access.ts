// Who may touch which DNS object: zones, their records and nameservers belong to a group, and a user reads
// and writes those of their own group and the groups below it (as for users and groups). Nameservers of the
// groups above are usable (assignable to zones, readable) but not writable: a parent operates them.
import { forbidden, notFound } from '../../errors';
import type { Db } from '../../queries/db';
import { findGroupForShare, findSubtreeGroupIds } from '../../queries/group-tree';
import { isInSubtree } from '../../queries/groups';
import type { Caller } from '../access/caller';
import { assertGroupAccess } from '../directory/permissions';

export { assertGroupAccess };

export async function canUseNameserverOf(db: Db, caller: Caller, groupId: number): Promise<boolean> {
  return (await isInSubtree(db, caller.groupId, groupId)) || (await isInSubtree(db, groupId, caller.groupId));
}

export async function assertNameserverUsable(db: Db, caller: Caller, groupId: number): Promise<void> {
  if (!(await canUseNameserverOf(db, caller, groupId))) {
    throw forbidden('You may not use this nameserver: it belongs to a group outside yours');
  }
}

/** The groups a list covers: `gid` (default: the caller's) after an access check, plus its subtree if asked. */
export async function listScope(db: Db, caller: Caller, gid: number | undefined, includeSubgroups: boolean): Promise<number[]> {
  const root = await listRoot(db, caller, gid);
  return includeSubgroups ? findSubtreeGroupIds(db, root) : [root];
}

/** The group a list is about (`gid`, else the caller's), once the caller is known to reach it. */
export async function listRoot(db: Db, caller: Caller, gid: number | undefined): Promise<number> {
  const root = gid ?? caller.groupId;
  await assertGroupAccess(db, caller, root, 'group');
  return root;
}

/** The group a zone or nameserver is created in (or moved to): live, in the caller's subtree, share-locked. */
export async function assertGroupUsableForNewObject(db: Db, caller: Caller, groupId: number): Promise<void> {
  const group = await findGroupForShare(db, groupId);
  if (!group || group.deleted_at) throw notFound('Group not found');
  await assertGroupAccess(db, caller, groupId, 'group');
}
