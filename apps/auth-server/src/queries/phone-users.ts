// SQL for phone confirmation and phone changes on auth.users and the phone identity.
import { sql } from 'kysely';
import type { UserRow } from './columns';
import { userColumns } from './columns';
import type { Executor } from './users';

export async function confirmPhone(db: Executor, userId: string, at: Date): Promise<void> {
  await db.updateTable('auth.users').set({ phone_confirmed_at: at, updated_at: at } as never).where('id', '=', userId).execute();
  await db
    .updateTable('auth.identities')
    .set({ identity_data: sql`identity_data || '{"phone_verified": true}'::jsonb`, updated_at: at } as never)
    .where('user_id', '=', userId)
    .where('provider', '=', 'phone')
    .execute();
}

export async function setPendingPhoneChange(db: Executor, userId: string, phone: string, at: Date): Promise<void> {
  await db.updateTable('auth.users').set({ phone_change: phone, updated_at: at } as never).where('id', '=', userId).execute();
}

/** The pending number becomes the confirmed phone (a unique violation: another user has it). */
export async function applyPhoneChange(db: Executor, userId: string, phone: string, at: Date): Promise<void> {
  await db
    .updateTable('auth.users')
    .set({ phone, phone_confirmed_at: at, phone_change: '', phone_change_token: '', updated_at: at } as never)
    .where('id', '=', userId)
    .execute();
  await db
    .updateTable('auth.identities')
    .set({ identity_data: sql`identity_data || jsonb_build_object('phone', ${phone}::text, 'phone_verified', true)`, updated_at: at } as never)
    .where('user_id', '=', userId)
    .where('provider', '=', 'phone')
    .execute();
}

export async function findUserByPendingPhone(db: Executor, phone: string, aud: string): Promise<UserRow | undefined> {
  return (await db
    .selectFrom('auth.users')
    .select(userColumns)
    .where('phone_change', '=', phone)
    .where('aud', '=', aud)
    .executeTakeFirst()) as UserRow | undefined;
}
