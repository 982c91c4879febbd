// The publisher (issue 19): applies queued publish jobs (queue.ts) in order, per nameserver, to PowerDNS or to
// zone files. One instance at a time across the service (a PostgreSQL advisory lock held for the run); it runs
// after every request that may have queued something and every poll_seconds. A job applies the zone as it is
// now, so a later job for the same zone and nameserver is then already done. A failure keeps the job (and every
// later one for that nameserver) queued with exponential backoff up to max_retry_seconds, and is shown at
// GET /nameserver/<id>/status.
import { sql } from 'kysely';
import type { DnsConfig } from '@keyzone/config';
import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { Db } from '../queries/db';
import { findNameserverById } from '../queries/nameservers';
import { publishToPowerDns, removeFromPowerDns } from './powerdns';
import { zoneSnapshot } from './snapshot';
import { publishZoneFile, removeZoneFile } from './zone-files';

/** pg_try_advisory_xact_lock key of the publisher ("kzpb"). */
const LEADER_LOCK = 0x6b7a7062;
const BATCH = 200;

export interface PublishStatus {
  nameserver_id: number;
  queued: number;
  last_success_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  next_attempt_at: string | null;
  /** Why this nameserver gets no publish jobs (no target in publish.yml, publishing off), or null. */
  not_published: string | null;
  /** Zones whose jobs are failing (each holds only its own later jobs), at most 100. */
  failing_zones: Array<{ zone_id: number; zone: string | null; attempts: number; last_error: string | null; next_attempt_at: string | null }>;
}

export class Publisher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(private readonly deps: { db: Db; config: DnsConfig; clock: Clock; log: Logger }) {}

  start(): void {
    this.timer = setInterval(() => this.kick(), this.deps.config.publish.pollSeconds * 1000);
    this.timer.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Runs soon; a run already going runs once more after it. */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.runOnce()
      .catch((err: unknown) => this.deps.log.warn({ err }, 'publishing run failed'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Waits for the run in progress (tests). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** One pass over the due jobs, if this instance is the leader. */
  async runOnce(): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(${LEADER_LOCK}) as ok`.execute(trx);
      if (!rows[0]?.ok) return;
      const jobs = await trx.selectFrom('dns.publish_jobs').selectAll().orderBy('id').limit(BATCH).execute();
      // Jobs keep their order per zone and nameserver; a zone whose job fails (or waits for its retry) holds only
      // its own later jobs, never other zones' (one bad zone once stopped publishing for the whole nameserver).
      const held = new Set<string>();
      for (const job of jobs) {
        const key = `${job.nameserver_id}:${job.zone_id}`;
        if (held.has(key)) continue;
        const now = this.deps.clock.now();
        if (new Date(job.next_attempt_at).getTime() > now.getTime()) {
          held.add(key);
          continue;
        }
        try {
          await this.apply(trx, job.nameserver_id, job.zone_id);
          await trx.deleteFrom('dns.publish_jobs')
            .where('nameserver_id', '=', job.nameserver_id).where('zone_id', '=', job.zone_id).where('id', '<=', job.id).execute();
          await this.recordStatus(trx, job.nameserver_id, { ok: true, at: now });
        } catch (err) {
          held.add(key);
          const message = (err as Error).message.slice(0, 1000);
          const wait = Math.min(this.deps.config.publish.maxRetrySeconds, 2 ** Math.min(job.attempts, 16));
          await trx.updateTable('dns.publish_jobs')
            .set({ attempts: job.attempts + 1, last_error: message, next_attempt_at: new Date(now.getTime() + wait * 1000) })
            .where('id', '=', job.id).execute();
          await this.recordStatus(trx, job.nameserver_id, { ok: false, at: now, error: message });
          this.deps.log.warn({ nameserver: job.nameserver_id, zone: job.zone_id, err: message }, 'publishing failed; will retry');
        }
      }
    });
  }

  private async apply(trx: Db, nameserverId: number, zoneId: number): Promise<void> {
    const nameserver = await findNameserverById(trx, nameserverId);
    const snapshot = await zoneSnapshot(trx, zoneId, nameserverId);
    if (!nameserver || !snapshot) return;
    const { publish } = this.deps.config;
    const timeoutMs = publish.timeoutSeconds * 1000;
    if (nameserver.export_type === 'powerdns') {
      const settings = publish.powerdns[nameserver.name];
      if (!settings) throw new Error(`publish.yml has no powerdns settings for ${nameserver.name}`);
      const target = { ...settings, timeoutMs };
      if (snapshot.zone) await publishToPowerDns(target, snapshot.zone, { dnssec: snapshot.dnssec, nsec3: snapshot.nsec3 });
      else await removeFromPowerDns(target, snapshot.name);
      return;
    }
    if (!publish.zoneFiles) throw new Error('publish.yml has no zone_files settings');
    const target = { ...publish.zoneFiles, timeoutMs };
    if (snapshot.zone) await publishZoneFile(target, snapshot.zone, { dnssec: snapshot.dnssec, nsec3: snapshot.nsec3 });
    else await removeZoneFile(target, snapshot.name);
  }

  private async recordStatus(trx: Db, nameserverId: number, result: { ok: boolean; at: Date; error?: string }): Promise<void> {
    const values = result.ok
      ? { nameserver_id: nameserverId, last_success_at: result.at }
      : { nameserver_id: nameserverId, last_error: result.error ?? '', last_error_at: result.at };
    await trx.insertInto('dns.publish_status').values(values).onConflict((oc) => oc.column('nameserver_id').doUpdateSet(values)).execute();
  }
}

export async function publishStatus(db: Db, nameserverId: number, notPublished: string | null): Promise<PublishStatus> {
  const [status, queue, failing] = await Promise.all([
    db.selectFrom('dns.publish_status').selectAll().where('nameserver_id', '=', nameserverId).executeTakeFirst(),
    db.selectFrom('dns.publish_jobs')
      .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min('next_attempt_at').as('next')])
      .where('nameserver_id', '=', nameserverId).executeTakeFirst(),
    // The oldest failing job of each zone: what holds that zone back.
    db.selectFrom('dns.publish_jobs as j')
      .leftJoin('dns.zones as z', 'z.id', 'j.zone_id')
      .distinctOn('j.zone_id')
      .select(['j.zone_id', 'z.name', 'j.attempts', 'j.last_error', 'j.next_attempt_at'])
      .where('j.nameserver_id', '=', nameserverId).where('j.attempts', '>', 0)
      .orderBy('j.zone_id').orderBy('j.id')
      .limit(100)
      .execute(),
  ]);
  const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);
  return {
    nameserver_id: nameserverId,
    queued: Number(queue?.n ?? 0),
    last_success_at: iso(status?.last_success_at),
    last_error: status?.last_error ?? null,
    last_error_at: iso(status?.last_error_at),
    next_attempt_at: Number(queue?.n ?? 0) > 0 ? iso(queue?.next as Date | null) : null,
    not_published: notPublished,
    failing_zones: failing.map((f) => ({
      zone_id: f.zone_id, zone: f.name, attempts: f.attempts, last_error: f.last_error, next_attempt_at: iso(f.next_attempt_at),
    })),
  };
}
