// SQL for auth.email_send_log: one row per email sent (or, for an unknown address, per email that
// would have been), shared by every instance of the service.
import { sql } from 'kysely';
import type { Executor } from './users';

/** Serializes the budget check across instances until the caller's transaction ends. */
const EMAIL_BUDGET_LOCK_KEY = 0x6b7a6d61; // "kzma"

export async function lockEmailBudget(db: Executor): Promise<void> {
  await sql`select pg_advisory_xact_lock(${EMAIL_BUDGET_LOCK_KEY})`.execute(db);
}

export interface SentCounts {
  total: number;
  toRecipient: number;
  byClient: number;
}

/** The three budgets' counts since `since`, in one statement. */
export async function countEmailsSentSince(db: Executor, since: Date, who: { recipient?: string; client?: string } = {}): Promise<SentCounts> {
  const row = await db
    .selectFrom('auth.email_send_log')
    .select((eb) => [
      eb.fn.countAll<string>().as('total'),
      eb.fn.count<string>(eb.case().when('recipient', '=', who.recipient ?? '').then(1).end()).as('to_recipient'),
      eb.fn.count<string>(eb.case().when('client', '=', who.client ?? '').then(1).end()).as('by_client'),
    ])
    .where('sent_at', '>', since)
    .executeTakeFirst();
  return { total: Number(row?.total ?? 0), toRecipient: Number(row?.to_recipient ?? 0), byClient: Number(row?.by_client ?? 0) };
}

export async function insertEmailSendLog(
  db: Executor,
  entry: { userId: string | null; kind: string; recipient: string; client: string | null; sentAt: Date },
): Promise<void> {
  await db
    .insertInto('auth.email_send_log')
    .values({ user_id: entry.userId, kind: entry.kind, recipient: entry.recipient, client: entry.client, sent_at: entry.sentAt })
    .execute();
}

export async function lastEmailSentAt(db: Executor, recipient: string, kind: string): Promise<Date | undefined> {
  const row = await db
    .selectFrom('auth.email_send_log')
    .select((eb) => eb.fn.max('sent_at').as('last'))
    .where('recipient', '=', recipient)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return row?.last ? new Date(row.last) : undefined;
}
