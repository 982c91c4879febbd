// Linking auth-server users to DNS users (issue 20): administrators link, list and unlink, for users of their
// group subtree; a user may list their own links.
import type { Deps } from '../../deps';
import { conflict, notFound } from '../../errors';
import { findUserById } from '../../queries/users';
import { deleteUserIdentity, insertUserIdentity, listUserIdentities, type UserIdentityRow } from '../../queries/user-identities';
import type { Caller } from './caller';
import { assertAdmin, assertGroupAccess } from '../directory/permissions';

async function liveUserInReach(deps: Deps, caller: Caller, userId: number): Promise<void> {
  const user = await findUserById(deps.db, userId);
  if (!user || user.deleted_at) throw notFound('User not found');
  await assertGroupAccess(deps.db, caller, user.group_id, 'user');
}

export async function linkIdentity(deps: Deps, caller: Caller, userId: number, sub: string): Promise<UserIdentityRow> {
  assertAdmin(caller, 'link auth-server users');
  await liveUserInReach(deps, caller, userId);
  if (!(await insertUserIdentity(deps.db, { sub, userId, linkedBy: 'admin', now: deps.clock.now() }))) {
    throw conflict('That auth-server user is already linked to a DNS user');
  }
  const row = (await listUserIdentities(deps.db, userId)).find((r) => r.sub === sub);
  if (!row) throw notFound('Identity not found');
  return row;
}

export async function identitiesOf(deps: Deps, caller: Caller, userId: number): Promise<UserIdentityRow[]> {
  if (userId !== caller.userId) assertAdmin(caller, 'read other users\' identities');
  await liveUserInReach(deps, caller, userId);
  return listUserIdentities(deps.db, userId);
}

export async function unlinkIdentity(deps: Deps, caller: Caller, userId: number, sub: string): Promise<void> {
  assertAdmin(caller, 'unlink auth-server users');
  await liveUserInReach(deps, caller, userId);
  if (!(await deleteUserIdentity(deps.db, userId, sub))) throw notFound('Identity not found');
}
