// SQL for auth.mail_outbox. Rows are claimed with FOR UPDATE SKIP LOCKED and a lease (the next
// attempt time moves forward), so several instances deliver without sending a message twice,
// and a message whose sender died is retried once the lease runs out.
import { sql } from 'kysely';
import type { AuthDb } from './db';
import type { Envelope } from '../mail/transport';
import type { Executor } from './users';

const outboxT = sql.table('auth.mail_outbox');

/** A message (kind = its mail kind, payload = the Envelope) or a job (kind = "job:<name>"). */
export interface QueuedMail {
  id: string;
  kind: string;
  payload: unknown;
  attempts: number;
}

export const JOB_PREFIX = 'job:';

export async function insertQueuedMail(db: Executor, mail: { kind: string; recipient: string; envelope: Envelope }): Promise<void> {
  await db
    .insertInto('auth.mail_outbox')
    .values({ kind: mail.kind, recipient: mail.recipient, envelope: JSON.stringify(mail.envelope) })
    .execute();
}

export async function insertQueuedJob(db: Executor, job: { name: string; recipient: string; payload: Record<string, unknown> }): Promise<void> {
  await db
    .insertInto('auth.mail_outbox')
    .values({ kind: JOB_PREFIX + job.name, recipient: job.recipient, envelope: JSON.stringify(job.payload) })
    .execute();
}

/** Claims up to `limit` due messages for `leaseSeconds` and counts the attempt. */
export async function claimDueMail(db: AuthDb, limit: number, leaseSeconds: number): Promise<QueuedMail[]> {
  const result = await sql<{ id: string; kind: string; envelope: unknown; attempts: number }>`
    update ${outboxT} set attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => ${leaseSeconds})
    where id in (
      select id from ${outboxT} where next_attempt_at <= now() order by id limit ${limit} for update skip locked
    )
    returning id, kind, envelope, attempts`.execute(db);
  return result.rows
    .map((r) => ({
      id: String(r.id),
      kind: r.kind,
      attempts: Number(r.attempts),
      payload: typeof r.envelope === 'string' ? (JSON.parse(r.envelope) as unknown) : r.envelope,
    }))
    .sort((a, b) => Number(a.id) - Number(b.id));
}

export async function deleteQueuedMail(db: AuthDb, id: string): Promise<void> {
  await db.deleteFrom('auth.mail_outbox').where('id', '=', id).execute();
}

export async function deferQueuedMail(db: AuthDb, id: string, delayMs: number, error: string): Promise<void> {
  await sql`update ${outboxT} set next_attempt_at = now() + make_interval(secs => ${delayMs / 1000}), last_error = ${error}
    where id = ${id}`.execute(db);
}

/** Milliseconds until the next message is due (0 if one is due now), undefined when none waits. */
export async function msUntilNextMail(db: AuthDb): Promise<number | undefined> {
  const result = await sql<{ ms: number | null }>`
    select greatest(0, extract(epoch from (min(next_attempt_at) - now())) * 1000) as ms from ${outboxT}`.execute(db);
  const ms = result.rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : Number(ms);
}
