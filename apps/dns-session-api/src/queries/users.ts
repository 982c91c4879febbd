import { CompiledQuery, sql } from 'kysely';
import { executeNamed } from '@keyzone/db';
import type { Db } from './db';

/** How dns.users.password_hash is to be read (NicTool imports keep their scheme until the next login). */
export type PasswordScheme = 'bcrypt' | 'pbkdf2-sha512' | 'hmac-sha1' | 'plaintext';

/** Everything but the password columns: what services may hand towards a response. */
export interface UserRow {
  id: number;
  group_id: number;
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  is_admin: boolean;
  /** NicTool's inherit_group_permissions: the group's permission object applies, not the user's own */
  inherit_group_permissions: boolean;
  deleted_at: Date | null;
}

export interface UserCredentials extends Omit<UserRow, 'deleted_at'> {
  group_name: string;
  password_hash: string;
  password_scheme: PasswordScheme;
  salt: string | null;
}

const columns = ['id', 'group_id', 'username', 'email', 'first_name', 'last_name', 'is_admin', 'inherit_group_permissions', 'deleted_at'] as const;

export async function findUserById(db: Db, id: number, options: { lock?: boolean } = {}): Promise<UserRow | undefined> {
  let query = db.selectFrom('dns.users').select(columns).where('id', '=', id);
  if (options.lock) query = query.forUpdate();
  return query.executeTakeFirst();
}

/**
 * Login candidates: live users with that username (case-insensitive) in live groups with that exact name.
 * Group names repeat across the tree, so several rows can match; the service tries each.
 */
/**
 * The one live user a login name can mean: group names are unique service-wide and usernames within a
 * group, both case-insensitively, so this is one lookup on the two unique indexes (the username matches
 * in any case, the group name exactly).
 */
export async function findLoginUser(db: Db, username: string, groupName: string): Promise<UserCredentials | undefined> {
  return db
    .selectFrom('dns.users as u')
    .innerJoin('dns.groups as g', 'g.id', 'u.group_id')
    .select([
      'u.id',
      'u.group_id',
      'g.name as group_name',
      'u.username',
      'u.email',
      'u.first_name',
      'u.last_name',
      'u.is_admin',
      'u.inherit_group_permissions',
      'u.password_hash',
      'u.password_scheme',
      'u.salt',
    ])
    .where((eb) => eb(eb.fn('lower', ['u.username']), '=', username.toLowerCase()))
    // The unique key is lower(name); the name itself must match exactly, as in NicTool (utf8mb4_bin).
    .where((eb) => eb(eb.fn('lower', ['g.name']), '=', groupName.toLowerCase()))
    .where('g.name', '=', groupName)
    .where('u.deleted_at', 'is', null)
    .where('g.deleted_at', 'is', null)
    .executeTakeFirst();
}

export async function insertUser(
  db: Db,
  values: {
    groupId: number;
    username: string;
    email: string;
    firstName: string;
    lastName: string;
    passwordHash: string;
    /** Default bcrypt; NicTool's schemes only come from import-nictool (rehashed to bcrypt at first login). */
    passwordScheme?: PasswordScheme;
    salt?: string | null;
    isAdmin: boolean;
    inheritGroupPermissions?: boolean;
    now: Date;
  },
): Promise<UserRow> {
  return db
    .insertInto('dns.users')
    .values({
      group_id: values.groupId,
      username: values.username,
      email: values.email,
      first_name: values.firstName,
      last_name: values.lastName,
      password_hash: values.passwordHash,
      password_scheme: values.passwordScheme ?? 'bcrypt',
      salt: values.salt ?? null,
      is_admin: values.isAdmin,
      inherit_group_permissions: values.inheritGroupPermissions ?? true,
      created_at: values.now,
      updated_at: values.now,
    })
    .returning(columns)
    .executeTakeFirstOrThrow();
}

export interface UserChanges {
  groupId?: number;
  username?: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  passwordHash?: string;
  isAdmin?: boolean;
  inheritGroupPermissions?: boolean;
  deletedAt?: Date | null;
}

export async function updateUser(db: Db, id: number, changes: UserChanges, now: Date): Promise<UserRow | undefined> {
  return db
    .updateTable('dns.users')
    .set({
      ...(changes.groupId !== undefined ? { group_id: changes.groupId } : {}),
      ...(changes.username !== undefined ? { username: changes.username } : {}),
      ...(changes.email !== undefined ? { email: changes.email } : {}),
      ...(changes.firstName !== undefined ? { first_name: changes.firstName } : {}),
      ...(changes.lastName !== undefined ? { last_name: changes.lastName } : {}),
      ...(changes.passwordHash !== undefined ? { password_hash: changes.passwordHash, password_scheme: 'bcrypt' as const, salt: null } : {}),
      ...(changes.isAdmin !== undefined ? { is_admin: changes.isAdmin } : {}),
      ...(changes.inheritGroupPermissions !== undefined ? { inherit_group_permissions: changes.inheritGroupPermissions } : {}),
      ...(changes.deletedAt !== undefined ? { deleted_at: changes.deletedAt } : {}),
      updated_at: now,
    })
    .where('id', '=', id)
    .returning(columns)
    .executeTakeFirst();
}

/** Rehash after a legacy login; conditional on the old hash so a concurrent password change wins. */
export async function upgradePasswordHash(db: Db, id: number, oldHash: string, newHash: string, now: Date): Promise<void> {
  await db
    .updateTable('dns.users')
    .set({ password_hash: newHash, password_scheme: 'bcrypt', salt: null, updated_at: now })
    .where('id', '=', id)
    .where('password_hash', '=', oldHash)
    .execute();
}

/** The users of one group, live or (deleted = true) deleted ones only, by username. */
export async function listUsersInGroup(db: Db, groupId: number, deleted: boolean): Promise<UserRow[]> {
  return db
    .selectFrom('dns.users')
    .select(columns)
    .where('group_id', '=', groupId)
    .where('deleted_at', deleted ? 'is not' : 'is', null)
    .orderBy('username')
    .orderBy('id')
    .execute();
}

/**
 * A user and whether their group is `viewerGroupId` or lies below it, in one round trip (the ancestors of the
 * user's group are walked upwards, so the cost is the tree's depth).
 */
export async function findUserWithAccess(
  db: Db,
  id: number,
  viewerGroupId: number,
): Promise<(UserRow & { accessible: boolean }) | undefined> {
  const [row] = await executeNamed(db, 'dns_user_with_access', userWithAccessStatement(db, id, viewerGroupId));
  return row;
}

function userWithAccessQuery(id: number, viewerGroupId: number) {
  return sql<UserRow & { accessible: boolean }>`
    with recursive up(id, parent_id, depth) as (
      select g.id, g.parent_id, 0 from dns.groups g join dns.users u on u.group_id = g.id where u.id = ${id}
      union all
      select g.id, g.parent_id, up.depth + 1 from dns.groups g join up on g.id = up.parent_id where up.depth < 64
    )
    select u.id, u.group_id, u.username, u.email, u.first_name, u.last_name, u.is_admin, u.inherit_group_permissions, u.deleted_at,
      exists(select 1 from up where up.id = ${viewerGroupId}) as accessible
    from dns.users u
    where u.id = ${id}`;
}

// Runs on every read of another user (GET /user/<id>): compiled once per Kysely instance and, on PostgreSQL, run
// as a named statement so the recursive query is not re-planned on every request.
const compiledUserWithAccess = new WeakMap<Db, string>();

function userWithAccessStatement(db: Db, id: number, viewerGroupId: number): CompiledQuery<UserRow & { accessible: boolean }> {
  let text = compiledUserWithAccess.get(db);
  if (text === undefined) {
    const compiled = userWithAccessQuery(-1, -2).compile(db);
    if (compiled.parameters.join(',') !== '-1,-2,-1') throw new Error('findUserWithAccess: unexpected parameters in the compiled query');
    text = compiled.sql;
    compiledUserWithAccess.set(db, text);
  }
  return CompiledQuery.raw(text, [id, viewerGroupId, id]) as CompiledQuery<UserRow & { accessible: boolean }>;
}

/** The users of several groups (a subtree), live or deleted as asked, by username then id. */
export async function listUsersInGroups(db: Db, groupIds: number[], deleted: boolean): Promise<UserRow[]> {
  if (groupIds.length === 0) return [];
  return db
    .selectFrom('dns.users')
    .select(columns)
    .where('group_id', 'in', groupIds)
    .where('deleted_at', deleted ? 'is not' : 'is', null)
    .orderBy('username')
    .orderBy('id')
    .execute();
}
