// The publisher (issues 19, 38): applies queued publish jobs (queue.ts) to PowerDNS or to zone files. Each
// (nameserver, zone) is published on its own, in job order: a slow or failing zone holds back only its own later
// changes, never another zone or another nameserver. Every instance publishes; a key is claimed with a lease
// (queries/publish-jobs.ts), so two never publish the same key at once and a crashed claim is taken over once its
// lease runs out. At most MAX_ACTIVE keys at once per instance, PER_NAMESERVER of them on one nameserver.
// No transaction stays open across a call to a nameserver: what to publish is read in one short transaction,
// the nameserver is called, and the result is recorded in another. A failure keeps the zone's jobs queued with
// exponential backoff up to max_retry_seconds, shown at GET /nameserver/<id>/status.
import type { DnsConfig } from '@keyzone/config';
import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { Db } from '../queries/db';
import {
  claimPublishJobs, failPublishJob, finishPublishJobs, pendingChanges, recordPublishedSerial, recordPublishStatus, renewPublishLease,
  type ClaimedJob,
} from '../queries/publish-jobs';
import { patchPowerDnsRrsets, powerDnsSerial, publishToPowerDns, removeFromPowerDns, type PowerDnsTarget } from './powerdns';
import { zoneSnapshot, type ZoneSnapshot } from './snapshot';
import { publishZoneFile, removeZoneFile } from './zone-files';

/** Keys published at once by one instance, and of them on one nameserver. */
const MAX_ACTIVE = 16;
const PER_NAMESERVER = 4;
/** More changed RRsets than this: the whole zone is compared instead (one GET against thousands of reads). */
const MAX_INCREMENTAL = 5000;

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

/** What one publish of a key reads, in one short transaction. */
interface PublishPlan {
  exportType: string;
  nameserverName: string;
  lastId: string;
  snapshot: ZoneSnapshot | undefined;
  /** The RRsets to send (PowerDNS, incremental), or null for the whole zone. */
  changed: string[] | null;
  /** The serial Keyzone last gave this nameserver, if known. */
  believedSerial: number | undefined;
}

export class Publisher {
  private timer: NodeJS.Timeout | undefined;
  private filling: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private readonly active = new Map<string, { nameserverId: number; done: Promise<void> }>();

  constructor(private readonly deps: { db: Db; config: DnsConfig; clock: Clock; log: Logger }) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), this.deps.config.publish.pollSeconds * 1000);
    this.timer.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.stopped = true;
    await this.idle();
  }

  /** Claims due jobs into free slots soon; a claim already going claims once more after it. */
  kick(): void {
    if (this.stopped) return;
    if (this.filling) {
      this.again = true;
      return;
    }
    this.filling = this.fill()
      .catch((err: unknown) => this.deps.log.warn({ err }, 'claiming publish jobs failed'))
      .finally(() => {
        this.filling = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Waits until nothing is being claimed or published (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.filling || this.active.size > 0) {
      await Promise.all([this.filling, ...[...this.active.values()].map((a) => a.done)]);
    }
  }

  private leaseMs(): number {
    return Math.max(60_000, 3 * this.deps.config.publish.timeoutSeconds * 1000);
  }

  private async fill(): Promise<void> {
    const now = this.deps.clock.now();
    const busy = new Map<number, number>();
    for (const { nameserverId } of this.active.values()) busy.set(nameserverId, (busy.get(nameserverId) ?? 0) + 1);
    const claimed = await claimPublishJobs(this.deps.db, {
      now, leaseUntil: new Date(now.getTime() + this.leaseMs()), limit: MAX_ACTIVE - this.active.size,
      slots: (id) => PER_NAMESERVER - (busy.get(id) ?? 0), skip: new Set(this.active.keys()),
    });
    for (const job of claimed) {
      const key = `${job.nameserver_id}:${job.zone_id}`;
      const done = this.publish(job).finally(() => {
        this.active.delete(key);
        this.kick();
      });
      this.active.set(key, { nameserverId: job.nameserver_id, done });
    }
  }

  /** Publishes one claimed key; never throws (a failure is recorded on the job). */
  private async publish(job: ClaimedJob): Promise<void> {
    const { db, clock, log, config } = this.deps;
    const renew = setInterval(() => {
      renewPublishLease(db, job.id, new Date(clock.now().getTime() + this.leaseMs()))
        .catch((err: unknown) => log.warn({ err }, 'renewing a publish lease failed'));
    }, this.leaseMs() / 3);
    try {
      // PowerDNS's serial is asked while the plan is read (an incremental publish compares them).
      const powerDnsTarget = job.export_type === 'powerdns' && job.published && job.nameserver_name ? this.powerDnsTarget(job.nameserver_name) : undefined;
      const servedSerial = powerDnsTarget && job.zone_name ? powerDnsSerial(powerDnsTarget, job.zone_name) : undefined;
      servedSerial?.catch(() => undefined);
      const plan = await this.plan(job);
      if (!plan) return;
      const serial = await this.apply(job, plan, servedSerial);
      const at = clock.now();
      await db.transaction().execute(async (trx) => {
        await finishPublishJobs(trx, job.nameserver_id, job.zone_id, plan.lastId);
        await recordPublishedSerial(trx, job.nameserver_id, job.zone_id, serial, at);
        await recordPublishStatus(trx, job.nameserver_id, { ok: true, at });
      });
    } catch (err) {
      const at = clock.now();
      const message = (err as Error).message.slice(0, 1000);
      const wait = Math.min(config.publish.maxRetrySeconds, 2 ** Math.min(job.attempts, 16));
      try {
        await db.transaction().execute(async (trx) => {
          await failPublishJob(trx, job.id, { attempts: job.attempts + 1, error: message, nextAttemptAt: new Date(at.getTime() + wait * 1000) });
          await recordPublishStatus(trx, job.nameserver_id, { ok: false, at, error: message });
        });
      } catch (recordErr) {
        // The lease runs out and the key is tried again.
        log.warn({ err: recordErr }, 'recording a publish failure failed');
      }
      log.warn({ nameserver: job.nameserver_id, zone: job.zone_id, err: message }, 'publishing failed; will retry');
    } finally {
      clearInterval(renew);
    }
  }

  /** Reads what to publish, in one short read-only transaction (the jobs and the zone from the same snapshot). */
  private async plan(job: ClaimedJob): Promise<PublishPlan | undefined> {
    if (!job.export_type || !job.nameserver_name) return undefined;
    const { export_type: exportType, nameserver_name: nameserverName } = job;
    return this.deps.db.transaction().setIsolationLevel('repeatable read').execute(async (trx) => {
      const pending = await pendingChanges(trx, job.nameserver_id, job.zone_id);
      if (!pending) return undefined;
      const believedSerial = pending.publishedSerial;
      const incremental = exportType === 'powerdns' && pending.rrsets !== null && pending.rrsets.length <= MAX_INCREMENTAL && believedSerial !== undefined;
      const owners = incremental ? pending.rrsets!.map((key) => key.slice(0, key.lastIndexOf(' '))) : undefined;
      const snapshot = await zoneSnapshot(trx, job.zone_id, job.nameserver_id, owners);
      return { exportType, nameserverName, lastId: pending.lastId, snapshot, changed: incremental ? pending.rrsets : null, believedSerial };
    });
  }

  private powerDnsTarget(nameserverName: string): PowerDnsTarget | undefined {
    const { publish } = this.deps.config;
    const settings = publish.powerdns[nameserverName];
    return settings && { ...settings, timeoutMs: publish.timeoutSeconds * 1000 };
  }

  /**
   * Calls the nameserver; the serial it now serves (undefined: it no longer has the zone). `servedSerial`: PowerDNS's
   * serial of the zone, asked already.
   */
  private async apply(job: ClaimedJob, plan: PublishPlan, servedSerial?: Promise<number | undefined>): Promise<number | undefined> {
    const { snapshot } = plan;
    if (!snapshot) return undefined;
    const { publish } = this.deps.config;
    const timeoutMs = publish.timeoutSeconds * 1000;
    const signing = { dnssec: snapshot.dnssec, nsec3: snapshot.nsec3 };
    if (plan.exportType === 'powerdns') {
      const target = this.powerDnsTarget(plan.nameserverName);
      if (!target) throw new Error(`publish.yml has no powerdns settings for ${plan.nameserverName}`);
      if (!snapshot.zone) {
        await removeFromPowerDns(target, snapshot.name);
        return undefined;
      }
      if (plan.changed && plan.believedSerial !== undefined) {
        const serial = servedSerial && snapshot.name === job.zone_name ? await servedSerial : await powerDnsSerial(target, snapshot.name);
        if (serial !== undefined && serial >= plan.believedSerial) {
          await patchPowerDnsRrsets(target, snapshot.zone, plan.changed);
          return snapshot.serial;
        }
        this.deps.log.info({ nameserver: job.nameserver_id, zone: snapshot.name, serial, expected: plan.believedSerial }, 'PowerDNS is behind: publishing the whole zone');
        // The whole zone, read now (short, no transaction): at least as new as the jobs this publish removes.
        const full = await zoneSnapshot(this.deps.db, job.zone_id, job.nameserver_id);
        if (!full?.zone) throw new Error(`${snapshot.name} changed while it was published; trying again`);
        await publishToPowerDns(target, full.zone, { dnssec: full.dnssec, nsec3: full.nsec3 });
        return full.serial;
      }
      await publishToPowerDns(target, snapshot.zone, signing);
      return snapshot.serial;
    }
    if (!publish.zoneFiles) throw new Error('publish.yml has no zone_files settings');
    const target = { ...publish.zoneFiles, timeoutMs };
    if (!snapshot.zone) {
      await removeZoneFile(target, snapshot.name);
      return undefined;
    }
    await publishZoneFile(target, snapshot.zone, signing);
    return snapshot.serial;
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
