import { isUniqueViolation } from '@keyzone/db';
import type { Deps } from '../../deps';
import { conflict } from '../../errors';
import { findLiveRootGroupByName, insertGroup, type GroupRow } from '../../queries/groups';
import { insertUser, type UserRow } from '../../queries/users';
import { hashPassword } from '../access/passwords';

export interface BootstrapUser {
  group: string;
  username: string;
  password: string;
  email: string;
  firstName: string;
  lastName: string;
  isAdmin: boolean;
}

/**
 * The CLI's create-user: finds the root group of that name or creates it, then adds the user, in one
 * transaction. This is how the first administrator (and root groups, which the API does not create) appear.
 */
export async function createUserWithGroup(deps: Pick<Deps, 'db' | 'clock' | 'config'>, input: BootstrapUser): Promise<{ user: UserRow; group: GroupRow }> {
  const passwordHash = await hashPassword(input.password, deps.config.security.bcryptCost);
  return deps.db.transaction().execute(async (trx) => {
    const now = deps.clock.now();
    const group =
      (await findLiveRootGroupByName(trx, input.group)) ?? (await insertGroup(trx, { parentId: null, name: input.group, now }));
    const user = await insertUser(trx, {
      groupId: group.id,
      username: input.username,
      email: input.email,
      firstName: input.firstName,
      lastName: input.lastName,
      passwordHash,
      isAdmin: input.isAdmin,
      now,
    }).catch((err: unknown) => {
      throw isUniqueViolation(err) ? conflict(`User ${input.username} already exists in group ${input.group}`) : err;
    });
    return { user, group };
  });
}
