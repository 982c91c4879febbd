// SQL for auth.users. Each function takes the executor (pool or transaction) first.
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { AuthDatabase } from '@keyzone/db';
import { userColumns, type UserRow } from './columns';

export type Executor = Kysely<AuthDatabase> | Transaction<AuthDatabase>;

export const NIL_UUID = '00000000-0000-0000-0000-000000000000';

export async function findUserById(db: Executor, id: string): Promise<UserRow | undefined> {
  return (await db.selectFrom('auth.users').select(userColumns).where('id', '=', id).executeTakeFirst()) as
    | UserRow
    | undefined;
}

/** Email users are unique per (email, aud) among non-SSO users (reference §5.1). */
export async function findUserByEmail(db: Executor, email: string, aud: string): Promise<UserRow | undefined> {
  return (await db
    .selectFrom('auth.users')
    .select(userColumns)
    .where('email', '=', email)
    .where('aud', '=', aud)
    .where('is_sso_user', '=', false)
    .executeTakeFirst()) as UserRow | undefined;
}

export async function findUserByPhone(db: Executor, phone: string, aud: string): Promise<UserRow | undefined> {
  return (await db.selectFrom('auth.users').select(userColumns).where('phone', '=', phone).where('aud', '=', aud).executeTakeFirst()) as
    | UserRow
    | undefined;
}

export async function findPasswordHash(db: Executor, id: string): Promise<string | null | undefined> {
  const row = await db.selectFrom('auth.users').select(['encrypted_password']).where('id', '=', id).executeTakeFirst();
  return row?.encrypted_password;
}

export interface NewUser {
  id: string;
  aud: string;
  role: string;
  email: string | null;
  phone: string | null;
  encrypted_password: string;
  email_confirmed_at: Date | null;
  phone_confirmed_at?: Date | null;
  banned_until?: Date | null;
  confirmation_sent_at: Date | null;
  raw_app_meta_data: Record<string, unknown>;
  raw_user_meta_data: Record<string, unknown>;
  is_anonymous: boolean;
  /** A user of an SSO provider: its own account even where a user with the same address exists (GoTrue's rule). */
  is_sso_user?: boolean;
  created_at: Date;
  updated_at: Date;
}

export async function insertUser(db: Executor, user: NewUser): Promise<UserRow> {
  return (await db
    .insertInto('auth.users')
    .values({
      instance_id: NIL_UUID,
      ...user,
      raw_app_meta_data: JSON.stringify(user.raw_app_meta_data),
      raw_user_meta_data: JSON.stringify(user.raw_user_meta_data),
    } as never)
    .returning(userColumns)
    .executeTakeFirstOrThrow()) as UserRow;
}

export async function setLastSignIn(db: Executor, id: string, at: Date): Promise<void> {
  await db.updateTable('auth.users').set({ last_sign_in_at: at, updated_at: at } as never).where('id', '=', id).execute();
}

export type MetadataColumn = 'raw_user_meta_data' | 'raw_app_meta_data';

/**
 * SQL for "`column` with `data` merged in" (shallow, a null value deletes the key), evaluated by
 * the UPDATE itself against the row it locks, so concurrent updates of different keys all survive
 * (a read-merge-write in JavaScript would let the last writer drop the others' keys).
 */
export function mergedMetadata(column: MetadataColumn, data: Record<string, unknown>): RawBuilder<Record<string, unknown>> {
  const set: Record<string, unknown> = {};
  const removed: string[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (value === null) removed.push(key);
    else set[key] = value;
  }
  return sql<Record<string, unknown>>`(coalesce(${sql.ref(column)}, '{}'::jsonb) || ${JSON.stringify(set)}::jsonb)${sql.join(
    removed.map((key) => sql` - ${key}::text`),
    sql``,
  )}`;
}

async function mergeMetadataColumn(
  db: Executor,
  id: string,
  column: MetadataColumn,
  data: Record<string, unknown>,
  at: Date,
): Promise<Record<string, unknown>> {
  const row = (await db
    .updateTable('auth.users')
    .set({ [column]: mergedMetadata(column, data), updated_at: at } as never)
    .where('id', '=', id)
    .returning(column)
    .executeTakeFirst()) as Partial<Record<MetadataColumn, unknown>> | undefined;
  return (row?.[column] ?? {}) as Record<string, unknown>;
}

/** Merges `data` into user_metadata in one UPDATE (see mergedMetadata); returns the new metadata. */
export function mergeUserMetadata(db: Executor, id: string, data: Record<string, unknown>, at: Date): Promise<Record<string, unknown>> {
  return mergeMetadataColumn(db, id, 'raw_user_meta_data', data, at);
}

/** Merges `data` into app_metadata in one UPDATE (see mergedMetadata); returns the new metadata. */
export function mergeAppMetadata(db: Executor, id: string, data: Record<string, unknown>, at: Date): Promise<Record<string, unknown>> {
  return mergeMetadataColumn(db, id, 'raw_app_meta_data', data, at);
}

/** Sets a new password hash and clears every pending one-time token (reference §5.2). */
export async function setPassword(db: Executor, id: string, hash: string, at: Date): Promise<void> {
  await db
    .updateTable('auth.users')
    .set({
      encrypted_password: hash,
      updated_at: at,
      confirmation_token: '',
      recovery_token: '',
      email_change_token_current: '',
      email_change_token_new: '',
      phone_change_token: '',
      reauthentication_token: '',
    } as never)
    .where('id', '=', id)
    .execute();
}

export async function findReauthenticationToken(
  db: Executor,
  id: string,
): Promise<{ reauthentication_token: string | null; reauthentication_sent_at: Date | string | null } | undefined> {
  return (await db
    .selectFrom('auth.users')
    .select(['reauthentication_token', 'reauthentication_sent_at'])
    .where('id', '=', id)
    .executeTakeFirst()) as
    | { reauthentication_token: string | null; reauthentication_sent_at: Date | string | null }
    | undefined;
}

export async function setConfirmationSentAt(db: Executor, id: string, at: Date): Promise<void> {
  await db.updateTable('auth.users').set({ confirmation_sent_at: at }).where('id', '=', id).execute();
}

/** Adds a provider to app_metadata.providers (and sets app_metadata.provider when the user has none yet). */
export async function addProviderToUser(db: Executor, userId: string, provider: string, at: Date): Promise<void> {
  await db
    .updateTable('auth.users')
    .set({
      raw_app_meta_data: sql`jsonb_set(
        case when raw_app_meta_data ? 'provider' then raw_app_meta_data
             else raw_app_meta_data || jsonb_build_object('provider', ${provider}::text) end,
        '{providers}',
        case when coalesce(raw_app_meta_data->'providers', '[]'::jsonb) ? ${provider}::text
             then coalesce(raw_app_meta_data->'providers', '[]'::jsonb)
             else coalesce(raw_app_meta_data->'providers', '[]'::jsonb) || jsonb_build_array(${provider}::text) end)`,
      updated_at: at,
    } as never)
    .where('id', '=', userId)
    .execute();
}

/** Sets app_metadata.providers to the providers of the user's remaining identities (after an unlink). */
export async function syncProvidersWithIdentities(db: Executor, userId: string, at: Date): Promise<void> {
  const rows = await db.selectFrom('auth.identities').select('provider').distinct().where('user_id', '=', userId).orderBy('provider').execute();
  const providers = JSON.stringify(rows.map((row) => row.provider));
  await db
    .updateTable('auth.users')
    .set({ raw_app_meta_data: sql`jsonb_set(raw_app_meta_data, '{providers}', ${providers}::jsonb)`, updated_at: at } as never)
    .where('id', '=', userId)
    .execute();
}

/**
 * A provider vouched for the address of a user who never confirmed it: it is confirmed now, and a password
 * set by whoever registered the unproven address is dropped (else they could sign in to the linked account).
 */
export async function confirmEmailFromProvider(db: Executor, userId: string, at: Date): Promise<void> {
  await db
    .updateTable('auth.users')
    .set({ email_confirmed_at: at, encrypted_password: '', updated_at: at } as never)
    .where('id', '=', userId)
    .where('email_confirmed_at', 'is', null)
    .execute();
}
