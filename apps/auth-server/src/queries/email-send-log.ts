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
  /** Mails that went to an account (rows with a user): what the service-wide budget counts. */
  total: number;
  /** Of those, mails to an address nobody has proven yet (`unprovenKinds`). */
  unproven: number;
  toRecipient: number;
  byClient: number;
}

/** The three budgets' counts since `since`, in one statement. */
export async function countEmailsSentSince(
  db: Executor,
  since: Date,
  who: { recipient?: string; client?: string } = {},
  unprovenKinds: readonly string[] = [],
): Promise<SentCounts> {
  const row = await db
    .selectFrom('auth.email_send_log')
    .select((eb) => [
      eb.fn.count<string>(eb.case().when('user_id', 'is not', null).then(1).end()).as('total'),
      eb.fn.count<string>(eb.case().when(eb.and([eb('user_id', 'is not', null), eb('kind', 'in', unprovenKinds.length ? [...unprovenKinds] : [''])])).then(1).end()).as('unproven'),
      eb.fn.count<string>(eb.case().when('recipient', '=', who.recipient ?? '').then(1).end()).as('to_recipient'),
      eb.fn.count<string>(eb.case().when('client', '=', who.client ?? '').then(1).end()).as('by_client'),
    ])
    .where('sent_at', '>', since)
    .executeTakeFirst();
  return {
    total: Number(row?.total ?? 0), unproven: Number(row?.unproven ?? 0),
    toRecipient: Number(row?.to_recipient ?? 0), byClient: Number(row?.by_client ?? 0),
  };
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

/**
 * A deferred mail (POST /recover's job) went to `userId`: the request's own row, taken before the address was looked
 * up, now counts as a sent mail. No second row, so the per-address and per-client counts stay what they were.
 */
export async function markEmailSent(db: Executor, entry: { recipient: string; kind: string; userId: string }): Promise<void> {
  await sql`
    update ${sql.table('auth.email_send_log')} set user_id = ${entry.userId}
    where id = (select id from ${sql.table('auth.email_send_log')}
                where recipient = ${entry.recipient} and kind = ${entry.kind} and user_id is null
                order by sent_at desc limit 1)`.execute(db);
}
