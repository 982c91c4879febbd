// The publish outbox (dns.publish_jobs), the per-nameserver status (dns.publish_status) and what each nameserver
// was last given of each zone (dns.publish_zone_state). Jobs are handled per (nameserver, zone) "key", oldest
// first: the oldest job of a key (its head) carries the key's lease and its retry time.
import { sql } from 'kysely';
import type { Db } from './db';

export interface ClaimedJob {
  id: string;
  nameserver_id: number;
  zone_id: number;
  attempts: number;
  /** The nameserver (null if it is gone) and the zone's name (null if the row is gone). */
  nameserver_name: string | null;
  export_type: string | null;
  zone_name: string | null;
  /** The nameserver was given the zone before (an incremental publish is possible). */
  published: boolean;
}

/**
 * Claims up to `limit` keys whose head is due and not leased: each claim sets the head's lease_until in one short
 * transaction. Two instances never claim the same key: the claim takes a transaction-scoped advisory lock on the key
 * (try, never wait) and re-checks in the same statement that no job of the key holds a live lease. A crashed
 * claimer's lease runs out and the key is claimed again. `slots(nameserverId)` says how many more keys of that
 * nameserver this instance may take now.
 */
export async function claimPublishJobs(
  db: Db, options: { now: Date; leaseUntil: Date; limit: number; slots: (nameserverId: number) => number; skip: Set<string> },
): Promise<ClaimedJob[]> {
  if (options.limit <= 0) return [];
  return db.transaction().execute(async (trx) => {
    const { rows: heads } = await sql<ClaimedJob>`
      select h.id, h.nameserver_id, h.zone_id, h.attempts from (
        select distinct on (nameserver_id, zone_id) id, nameserver_id, zone_id, attempts, next_attempt_at
        from dns.publish_jobs order by nameserver_id, zone_id, id
      ) h
      where h.next_attempt_at <= ${options.now}
        and not exists (select 1 from dns.publish_jobs l
                        where l.nameserver_id = h.nameserver_id and l.zone_id = h.zone_id and l.lease_until > ${options.now})
      order by h.id
      limit 1000`.execute(trx);
    const taken = new Map<number, number>();
    const claimed: ClaimedJob[] = [];
    for (const head of heads) {
      if (claimed.length >= options.limit) break;
      if (options.skip.has(`${head.nameserver_id}:${head.zone_id}`)) continue;
      const count = taken.get(head.nameserver_id) ?? 0;
      if (count >= options.slots(head.nameserver_id)) continue;
      const { rows: locked } = await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(${head.nameserver_id}, ${head.zone_id}) as ok`.execute(trx);
      if (!locked[0]?.ok) continue;
      const { rows } = await sql<ClaimedJob>`
        update dns.publish_jobs j set lease_until = ${options.leaseUntil}
        where j.id = ${head.id}
          and not exists (select 1 from dns.publish_jobs e
                          where e.nameserver_id = j.nameserver_id and e.zone_id = j.zone_id
                            and (e.id < j.id or e.lease_until > ${options.now}))
        returning j.id, j.nameserver_id, j.zone_id, j.attempts,
          (select n.name from dns.nameservers n where n.id = j.nameserver_id) as nameserver_name,
          (select n.export_type from dns.nameservers n where n.id = j.nameserver_id) as export_type,
          (select z.name from dns.zones z where z.id = j.zone_id) as zone_name,
          exists (select 1 from dns.publish_zone_state s where s.nameserver_id = j.nameserver_id and s.zone_id = j.zone_id) as published`.execute(trx);
      if (rows[0]) {
        claimed.push(rows[0]);
        taken.set(head.nameserver_id, count + 1);
      }
    }
    return claimed;
  });
}

/** Keeps a claim alive while its publish runs. */
export async function renewPublishLease(db: Db, jobId: string, leaseUntil: Date): Promise<void> {
  await db.updateTable('dns.publish_jobs').set({ lease_until: leaseUntil }).where('id', '=', jobId).execute();
}

/**
 * The key's jobs as of now: the newest id (what a success removes) and the RRsets they touched, null when one of
 * them changed the zone itself; and the serial Keyzone last gave this nameserver, if any. Read in the same
 * snapshot as the zone, so every change the jobs name is in it.
 */
export async function pendingChanges(
  db: Db, nameserverId: number, zoneId: number,
): Promise<{ lastId: string; rrsets: string[] | null; publishedSerial: number | undefined } | undefined> {
  const { rows: jobs } = await sql<{ id: string; rrsets: string[] | null; published: string | null }>`
    select j.id, j.rrsets,
      (select s.serial from dns.publish_zone_state s where s.nameserver_id = ${nameserverId} and s.zone_id = ${zoneId}) as published
    from dns.publish_jobs j where j.nameserver_id = ${nameserverId} and j.zone_id = ${zoneId} order by j.id`.execute(db);
  if (jobs.length === 0) return undefined;
  let rrsets: Set<string> | null = new Set();
  for (const job of jobs) {
    if (!job.rrsets) {
      rrsets = null;
      break;
    }
    for (const key of job.rrsets) rrsets.add(key);
  }
  const published = jobs[0]!.published;
  return { lastId: String(jobs[jobs.length - 1]!.id), rrsets: rrsets && [...rrsets], publishedSerial: published === null ? undefined : Number(published) };
}

/** A successful publish: the key's jobs up to `lastId` are done (later ones, queued meanwhile, stay). */
export async function finishPublishJobs(db: Db, nameserverId: number, zoneId: number, lastId: string): Promise<void> {
  await db.deleteFrom('dns.publish_jobs').where('nameserver_id', '=', nameserverId).where('zone_id', '=', zoneId).where('id', '<=', lastId).execute();
}

/** A failed publish: the head waits `nextAttemptAt` (holding back only its own key) and lets its lease go. */
export async function failPublishJob(db: Db, jobId: string, failure: { attempts: number; error: string; nextAttemptAt: Date }): Promise<void> {
  await db.updateTable('dns.publish_jobs')
    .set({ attempts: failure.attempts, last_error: failure.error, next_attempt_at: failure.nextAttemptAt, lease_until: null })
    .where('id', '=', jobId).execute();
}

export async function recordPublishStatus(db: Db, nameserverId: number, result: { ok: boolean; at: Date; error?: string }): Promise<void> {
  const values = result.ok
    ? { nameserver_id: nameserverId, last_success_at: result.at }
    : { nameserver_id: nameserverId, last_error: result.error ?? '', last_error_at: result.at };
  await db.insertInto('dns.publish_status').values(values).onConflict((oc) => oc.column('nameserver_id').doUpdateSet(values)).execute();
}

/** Remembers what the nameserver now has (serial), or that it has nothing of the zone (undefined). */
export async function recordPublishedSerial(db: Db, nameserverId: number, zoneId: number, serial: number | undefined, at: Date): Promise<void> {
  if (serial === undefined) {
    await db.deleteFrom('dns.publish_zone_state').where('nameserver_id', '=', nameserverId).where('zone_id', '=', zoneId).execute();
    return;
  }
  const values = { nameserver_id: nameserverId, zone_id: zoneId, serial, published_at: at };
  await db.insertInto('dns.publish_zone_state').values(values)
    .onConflict((oc) => oc.columns(['nameserver_id', 'zone_id']).doUpdateSet({ serial, published_at: at })).execute();
}
