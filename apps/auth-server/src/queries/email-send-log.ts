// SQL for auth.email_send_log: one row per email sent, shared by every instance of the service.
import { sql } from 'kysely';
import type { Executor } from './users';

/** Serializes the budget check across instances until the caller's transaction ends. */
const EMAIL_BUDGET_LOCK_KEY = 0x6b7a6d61; // "kzma"

export async function lockEmailBudget(db: Executor): Promise<void> {
  await sql`select pg_advisory_xact_lock(${EMAIL_BUDGET_LOCK_KEY})`.execute(db);
}

export async function countEmailsSentSince(db: Executor, since: Date): Promise<number> {
  const row = await db
    .selectFrom('auth.email_send_log')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('sent_at', '>', since)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

export async function insertEmailSendLog(
  db: Executor,
  entry: { userId: string | null; kind: string; recipient: string; sentAt: Date },
): Promise<void> {
  await db
    .insertInto('auth.email_send_log')
    .values({ user_id: entry.userId, kind: entry.kind, recipient: entry.recipient, sent_at: entry.sentAt })
    .execute();
}
