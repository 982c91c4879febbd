// SQL for the admin user endpoints (create with every field, update, hard and soft delete) and
// the identities of a whole page of users. Each function takes the executor first.
import { sql } from 'kysely';
import { identityColumns, userColumns, type IdentityRow, type UserRow } from './columns';
import type { Executor, NewUser } from './users';
import { insertUser, mergedMetadata } from './users';

/** jsonb parameter: serialized here so arrays inside stay JSON on every driver. */
const jsonb = (value: Record<string, unknown>) => JSON.stringify(value) as never;

/** Admin-created users: any confirmation state, optionally banned, never anonymous. */
export type AdminNewUser = Omit<NewUser, 'is_anonymous' | 'confirmation_sent_at' | 'phone_confirmed_at' | 'banned_until'> & {
  phone_confirmed_at: Date | null;
  banned_until: Date | null;
};

export function insertAdminUser(db: Executor, user: AdminNewUser): Promise<UserRow> {
  return insertUser(db, { ...user, is_anonymous: false, confirmation_sent_at: null });
}

/** The user row, locked for the rest of the transaction (closes update/delete races). */
export async function lockUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  return (await db.selectFrom('auth.users').select(userColumns).where('id', '=', id).forUpdate().executeTakeFirst()) as
    | UserRow
    | undefined;
}

/** True when another non-SSO user of `aud` has this email (GoTrue's IsDuplicatedEmail). */
export async function emailTaken(db: Executor, email: string, aud: string, exceptId?: string): Promise<boolean> {
  let q = db.selectFrom('auth.users').select('id').where('email', '=', email).where('aud', '=', aud).where('is_sso_user', '=', false);
  if (exceptId) q = q.where('id', '<>', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

export async function phoneTaken(db: Executor, phone: string, aud: string, exceptId?: string): Promise<boolean> {
  let q = db.selectFrom('auth.users').select('id').where('phone', '=', phone).where('aud', '=', aud);
  if (exceptId) q = q.where('id', '<>', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

export async function userIdExists(db: Executor, id: string): Promise<boolean> {
  return (await db.selectFrom('auth.users').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

export interface UserPatch {
  email?: string;
  phone?: string;
  role?: string;
  encrypted_password?: string;
  email_confirmed_at?: Date;
  phone_confirmed_at?: Date;
  banned_until?: Date | null;
  /** Merged into app_metadata by the UPDATE itself (a null value deletes the key). */
  merge_app_metadata?: Record<string, unknown>;
  /** Merged into user_metadata by the UPDATE itself (a null value deletes the key). */
  merge_user_metadata?: Record<string, unknown>;
}

export async function updateUserFields(db: Executor, id: string, patch: UserPatch, at: Date): Promise<UserRow> {
  const { merge_app_metadata, merge_user_metadata, ...plain } = patch;
  return (await db
    .updateTable('auth.users')
    .set({
      ...plain,
      ...(merge_app_metadata ? { raw_app_meta_data: mergedMetadata('raw_app_meta_data', merge_app_metadata) as never } : {}),
      ...(merge_user_metadata ? { raw_user_meta_data: mergedMetadata('raw_user_meta_data', merge_user_metadata) as never } : {}),
      updated_at: at,
    })
    .where('id', '=', id)
    .returning(userColumns)
    .executeTakeFirstOrThrow()) as UserRow;
}

/** Identities of many users at once (one query for a whole listing page), oldest first per user. */
export async function findIdentitiesByUserIds(db: Executor, userIds: readonly string[]): Promise<Map<string, IdentityRow[]>> {
  const byUser = new Map<string, IdentityRow[]>(userIds.map((id) => [id, []]));
  if (userIds.length === 0) return byUser;
  const rows = (await db
    .selectFrom('auth.identities')
    .select(identityColumns)
    .where('user_id', 'in', userIds)
    .orderBy('created_at', 'asc')
    .execute()) as IdentityRow[];
  for (const row of rows) byUser.get(row.user_id)?.push(row);
  return byUser;
}

export async function findIdentity(db: Executor, userId: string, provider: string): Promise<IdentityRow | undefined> {
  return (await db
    .selectFrom('auth.identities')
    .select(identityColumns)
    .where('user_id', '=', userId)
    .where('provider', '=', provider)
    .executeTakeFirst()) as IdentityRow | undefined;
}

/** Sets keys of an identity's identity_data (jsonb ||), e.g. the new email of an email identity. */
export async function mergeIdentityData(db: Executor, identityId: string, data: Record<string, unknown>, at: Date): Promise<void> {
  await db
    .updateTable('auth.identities')
    .set({ identity_data: sql`identity_data || ${JSON.stringify(data)}::jsonb`, updated_at: at })
    .where('id', '=', identityId)
    .execute();
}

export async function deleteUserById(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('auth.users').where('id', '=', id).execute();
}

/**
 * Soft delete (GoTrue's SoftDeleteUser + SoftDeleteUserIdentities): email, phone and pending
 * changes are replaced by one-way hashes of (user id + value), the password and every token are
 * cleared, deleted_at is set; identities lose their provider id and data; sessions (refresh tokens
 * cascade), MFA factors and one-time tokens are removed. The row stays for foreign keys and audit.
 */
export async function softDeleteUser(db: Executor, id: string, at: Date): Promise<void> {
  const obfuscate = (column: string) =>
    sql<string>`CASE WHEN ${sql.ref(column)} IS NULL OR ${sql.ref(column)} = '' THEN ${sql.ref(column)}
        ELSE encode(sha256(convert_to(${id} || ${sql.ref(column)}, 'UTF8')), 'hex') END`;
  await db
    .updateTable('auth.users')
    .set({
      email: obfuscate('email'),
      phone: obfuscate('phone'),
      email_change: obfuscate('email_change'),
      phone_change: obfuscate('phone_change'),
      encrypted_password: '',
      confirmation_token: '',
      recovery_token: '',
      email_change_token_current: '',
      email_change_token_new: '',
      phone_change_token: '',
      reauthentication_token: '',
      raw_user_meta_data: jsonb({}),
      deleted_at: at,
      updated_at: at,
    })
    .where('id', '=', id)
    .execute();
  await db
    .updateTable('auth.identities')
    .set({
      provider_id: sql`encode(sha256(convert_to(${id} || provider_id, 'UTF8')), 'hex')`,
      identity_data: jsonb({}),
      updated_at: at,
    })
    .where('user_id', '=', id)
    .execute();
  await db.deleteFrom('auth.sessions').where('user_id', '=', id).execute();
  await db.deleteFrom('auth.refresh_tokens').where('user_id', '=', id).execute();
  await db.deleteFrom('auth.mfa_factors').where('user_id', '=', id).execute();
  await db.deleteFrom('auth.one_time_tokens').where('user_id', '=', id).execute();
}
