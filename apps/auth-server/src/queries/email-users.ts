// SQL on auth.users / auth.identities used by the email flows (confirmation, invite, email change).
import { sql } from 'kysely';
import { addProviderToUser } from './users';
import type { Executor } from './users';

/** Confirms the email (first time only) and marks the email identity verified. */
export async function confirmEmail(db: Executor, userId: string, at: Date): Promise<void> {
  await db
    .updateTable('auth.users')
    .set({ email_confirmed_at: sql`coalesce(email_confirmed_at, ${at})`, updated_at: at } as never)
    .where('id', '=', userId)
    .execute();
  await db
    .updateTable('auth.identities')
    .set({ identity_data: sql`identity_data || '{"email_verified": true}'::jsonb`, updated_at: at } as never)
    .where('user_id', '=', userId)
    .where('provider', '=', 'email')
    .execute();
}

export async function setPasswordHash(db: Executor, userId: string, hash: string, at: Date): Promise<void> {
  await db.updateTable('auth.users').set({ encrypted_password: hash, updated_at: at } as never).where('id', '=', userId).execute();
}

export async function hasPassword(db: Executor, userId: string): Promise<boolean> {
  const row = await db.selectFrom('auth.users').select(['encrypted_password']).where('id', '=', userId).executeTakeFirst();
  return Boolean(row?.encrypted_password);
}

/** The user signs in through an external provider (their sign-up confirmation needs no password). */
export async function hasExternalIdentity(db: Executor, userId: string): Promise<boolean> {
  const row = await db
    .selectFrom('auth.identities')
    .select('id')
    .where('user_id', '=', userId)
    .where('provider', 'not in', ['email', 'phone'])
    .executeTakeFirst();
  return row !== undefined;
}

export async function setInvitedAt(db: Executor, userId: string, at: Date): Promise<void> {
  await db.updateTable('auth.users').set({ invited_at: at, updated_at: at } as never).where('id', '=', userId).execute();
}

/** Records a pending email change (status 0 = no link confirmed yet). */
export async function setPendingEmailChange(db: Executor, userId: string, newEmail: string, at: Date): Promise<void> {
  await db
    .updateTable('auth.users')
    .set({ email_change: newEmail, email_change_confirm_status: 0, updated_at: at } as never)
    .where('id', '=', userId)
    .execute();
}

/**
 * The first of two secure email-change confirmations flips status 0 → 1. One conditional UPDATE:
 * of two links verified at once exactly one sees itself as first; the other applies the change.
 */
export async function markFirstEmailChangeConfirmation(db: Executor, userId: string, at: Date): Promise<boolean> {
  const row = await db
    .updateTable('auth.users')
    .set({ email_change_confirm_status: 1, updated_at: at } as never)
    .where('id', '=', userId)
    .where('email_change_confirm_status', '=', 0)
    .returning(['id'])
    .executeTakeFirst();
  return row !== undefined;
}

/** Replaces the email with the pending one and confirms it; returns the old and new addresses. */
export async function applyEmailChange(db: Executor, userId: string, at: Date): Promise<{ oldEmail: string | null; newEmail: string } | undefined> {
  const before = await db.selectFrom('auth.users').select(['email', 'email_change']).where('id', '=', userId).forUpdate().executeTakeFirst();
  if (!before?.email_change) return undefined;
  await db
    .updateTable('auth.users')
    .set({
      email: before.email_change,
      email_change: '',
      email_change_confirm_status: 0,
      email_change_token_new: '',
      email_change_token_current: '',
      email_confirmed_at: sql`coalesce(email_confirmed_at, ${at})`,
      is_anonymous: false,
      updated_at: at,
    } as never)
    .where('id', '=', userId)
    .execute();
  return { oldEmail: before.email, newEmail: before.email_change };
}

/** Points the email identity at the new address (verified); false when the user has none. */
export async function updateEmailIdentity(db: Executor, userId: string, email: string, at: Date): Promise<boolean> {
  const rows = await db
    .updateTable('auth.identities')
    .set({
      identity_data: sql`identity_data || jsonb_build_object('email', ${email}::text, 'email_verified', true)`,
      updated_at: at,
    } as never)
    .where('user_id', '=', userId)
    .where('provider', '=', 'email')
    .returning(['id'])
    .execute();
  return rows.length > 0;
}

/** Adds 'email' to app_metadata.providers (a phone or anonymous user gaining an email). */
export function addEmailProvider(db: Executor, userId: string, at: Date): Promise<void> {
  return addProviderToUser(db, userId, 'email', at);
}
