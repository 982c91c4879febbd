// The refresher of zones kept as secondaries of outside primaries (RFC 1034 §4.3.5, RFC 1996): every instance looks
// for zones due every secondary_poll_seconds and claims them with a lease (queries/secondary-zones.ts), so two never
// check one zone at once. A check asks the primary for its SOA; when the serial is newer (RFC 1982) the zone is
// transferred (AXFR) and applied as one Keyzone change (apply.ts); the next check is `refresh` later, or `retry` after
// a failure. After `expire` seconds without an answer the zone expires: as a secondary must (RFC 1034 §4.3.5, "the
// secondary ... must cease serving the zone"), the listener answers SERVFAIL for it and it is withdrawn from Keyzone's
// nameservers, until the primary answers again. A NOTIFY from the primary marks the zone due (dns-server/notify-in.ts)
// and kicks this. No transaction is held across a call to the primary. Timers read deps.clock (tests move it).
import type { Deps } from '../../../deps';
import { pullZone, TransferError } from '../../../dns-server/axfr-client';
import { querySoa } from '../../../dns-server/soa-query';
import { enqueuePublish } from '../../../publishing/queue';
import { claimSecondaryZones, finishSecondaryCheck, renewSecondaryLease, type SecondaryZoneRow } from '../../../queries/secondary-zones';
import { findZoneById } from '../../../queries/zones';
import { applyTransfer, SecondaryError } from './apply';
import { clampInterval, primaryKey } from './manage';
import { serialNewer } from './serial';
import { checkTransferSource } from '../transfer-sources';

/** Zones checked at once by one instance. */
const MAX_ACTIVE = 8;
const LEASE_MS = 120_000;

export class SecondaryRefresher {
  private timer: NodeJS.Timeout | undefined;
  private readonly active = new Map<number, Promise<void>>();
  private looking: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly deps: Deps) {}

  start(): void {
    if (!this.deps.config.dns.secondaryRefresh) return;
    this.timer = setInterval(() => this.kick(), this.deps.config.dns.secondaryPollSeconds * 1000);
    this.timer.unref();
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.idle();
  }

  /** Looks for due zones soon; a look already going looks once more after it. */
  kick(): void {
    if (this.stopped || !this.deps.config.dns.secondaryRefresh) return;
    if (this.looking) {
      this.again = true;
      return;
    }
    this.looking = this.look()
      .catch((err: unknown) => this.deps.log.warn({ err }, 'looking for secondary zones to refresh failed'))
      .finally(() => {
        this.looking = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Waits until nothing is being looked for or checked (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.looking || this.active.size > 0) await Promise.all([this.looking, ...this.active.values()]);
  }

  private async look(): Promise<void> {
    const free = MAX_ACTIVE - this.active.size;
    if (free <= 0) return;
    const now = this.deps.clock.now();
    const claimed = await claimSecondaryZones(this.deps.db, { now, leaseUntil: new Date(now.getTime() + LEASE_MS), limit: free });
    for (const row of claimed) {
      const run = this.check(row).finally(() => {
        this.active.delete(row.zone_id);
        // A check that finished may have left another due (a NOTIFY meanwhile).
        this.kick();
      });
      this.active.set(row.zone_id, run);
    }
  }

  /** One claimed zone: asks the primary, transfers when newer, records the outcome. Never throws. */
  private async check(row: SecondaryZoneRow): Promise<void> {
    const { deps } = this;
    const renew = setInterval(() => {
      renewSecondaryLease(deps.db, row.zone_id, new Date(deps.clock.now().getTime() + LEASE_MS))
        .catch((err: unknown) => deps.log.warn({ err }, 'renewing a secondary zone lease failed'));
    }, LEASE_MS / 3);
    renew.unref();
    const zone = await findZoneById(deps.db, row.zone_id).catch(() => undefined);
    try {
      if (!zone) throw new SecondaryError('the zone is gone');
      const key = row.tsig_key_id === null ? undefined : await primaryKey(deps, row.tsig_key_id);
      if (row.tsig_key_id !== null && !key) throw new SecondaryError(`TSIG key ${row.tsig_key_id} is no longer in force`);
      // The allowed sources may have narrowed since the zone was made a secondary.
      try { checkTransferSource(deps.config, row.primary_address, 'primary'); } catch (err) { throw new SecondaryError((err as Error).message); }
      const target = { server: row.primary_address, port: row.primary_port, zone: zone.name, key, timeoutMs: deps.config.publish.timeoutSeconds * 1000, now: () => deps.clock.now().getTime() };
      const soa = await querySoa(target);
      let serial = row.primary_serial;
      let transferred = false;
      if (serial === null || serialNewer(soa.serial, serial)) {
        const records = await pullZone({ ...target, timeoutMs: target.timeoutMs * 3 });
        const result = await applyTransfer(deps, zone.id, zone.name, records, row);
        serial = result.serial;
        transferred = result.applied;
        if (result.applied) {
          deps.log.info({ zone: zone.name, serial, created: result.created, deleted: result.deleted, retimed: result.retimed }, 'secondary zone transferred from its primary');
          deps.publisher?.kick();
        }
      }
      const done = deps.clock.now();
      await finishSecondaryCheck(deps.db, row.zone_id, {
        primary_serial: serial, refresh: soa.refresh, retry: soa.retry, expire: soa.expire, last_check_at: done, last_success_at: done, last_error: null,
        expired_at: null, next_check_at: new Date(done.getTime() + clampInterval(deps.config, soa.refresh) * 1000),
        ...(transferred ? { last_transfer_at: done } : {}),
      }, row);
      if (row.expired_at) await this.republish(row.zone_id, done, 'secondary zone served again: its primary answered');
    } catch (err) {
      const message = err instanceof TransferError || err instanceof SecondaryError ? err.message : 'an internal error (logged)';
      if (!(err instanceof TransferError || err instanceof SecondaryError)) deps.log.error({ err, zone: zone?.name }, 'refreshing a secondary zone failed');
      const now = deps.clock.now();
      const since = row.last_success_at ?? row.created_at;
      const expire = row.expire ?? zone?.expire ?? 0;
      const expires = !row.expired_at && now.getTime() - new Date(since).getTime() >= expire * 1000;
      await finishSecondaryCheck(deps.db, row.zone_id, {
        last_check_at: now, last_error: message, expired_at: row.expired_at ?? (expires ? now : null),
        next_check_at: new Date(now.getTime() + clampInterval(deps.config, row.retry ?? zone?.retry ?? 3600) * 1000),
      }, row).catch((e: unknown) => deps.log.warn({ err: e }, 'recording a secondary zone check failed'));
      deps.log.warn({ zone: zone?.name, primary: row.primary_address, reason: message }, 'secondary zone check failed');
      if (expires) await this.republish(row.zone_id, now, 'secondary zone expired: its primary has not answered for the SOA expire');
    } finally {
      clearInterval(renew);
    }
  }

  /** The zone goes out to Keyzone's nameservers again (withdrawn when expired, served again when not). */
  private async republish(zoneId: number, now: Date, what: string): Promise<void> {
    this.deps.log.warn({ zoneId }, what);
    if (!this.deps.config.publish.enabled) return;
    await enqueuePublish(this.deps.db, this.deps.config.publish, zoneId, now).catch((err: unknown) => this.deps.log.warn({ err }, 'queueing a publish failed'));
    this.deps.publisher?.kick();
  }
}
