// "Publish now" (issue 42): the console's button and POST /nameserver/<id>/publish, /zone/<id>/publish. It does
// what `publish --all --nameserver <id>` does for one nameserver or one zone, in the request: a whole-zone job for
// each (nameserver, zone) key, so the publisher compares the nameserver's copy with the zone and sends what
// differs (a copy changed or removed behind Keyzone's back comes back), and the key's waiting jobs are due at
// once instead of after their backoff. Only the queue is written, in one short transaction; the publisher, kicked
// when the answer is sent, does the nameserver calls under its leases.
import type { DnsConfig } from '@keyzone/config';
import type { Db } from '../queries/db';
import { unpublishedReason } from './queue';

export interface PublishNowTarget {
  id: number;
  name: string;
  /** Why this nameserver is not published (publish.yml), or null when its keys were queued. */
  not_published: string | null;
}

export interface PublishNowResult {
  /** Whole-zone jobs added (a key that already has one waiting, not yet claimed, gets none). */
  queued: number;
  /** The live nameservers in scope: the one asked for, or the zone's. */
  nameservers: PublishNowTarget[];
}

/**
 * Queues the live zones of one live nameserver, or one live zone on each of its live nameservers. Runs in the
 * caller's transaction (`trx`), which has checked the caller may do it. One statement per step whatever the
 * number of zones (a nameserver may serve 100,000).
 */
export async function queuePublishNow(
  trx: Db, config: DnsConfig['publish'], now: Date, scope: { nameserverId: number } | { zoneId: number },
): Promise<PublishNowResult> {
  const inScope = 'nameserverId' in scope
    ? trx.selectFrom('dns.nameservers as n').select(['n.id', 'n.name', 'n.export_type']).where('n.id', '=', scope.nameserverId)
    : trx.selectFrom('dns.zone_nameservers as zn').innerJoin('dns.nameservers as n', 'n.id', 'zn.nameserver_id')
      .select(['n.id', 'n.name', 'n.export_type']).where('zn.zone_id', '=', scope.zoneId);
  const rows = await inScope.where('n.deleted_at', 'is', null).orderBy('n.id').execute();
  const nameservers = rows.map((n) => ({ id: n.id, name: n.name, not_published: unpublishedReason(config, n) }));
  const reachable = nameservers.filter((n) => n.not_published === null).map((n) => n.id);
  if (reachable.length === 0) return { queued: 0, nameservers };

  // Jobs waiting out a backoff (the key failed before) are tried at once: that is what "now" asks for. Jobs of
  // keys no longer assigned (a nameserver just taken off the zone) are due too, so its removal goes out as well.
  let due = trx.updateTable('dns.publish_jobs').set({ next_attempt_at: now }).where('next_attempt_at', '>', now);
  due = 'nameserverId' in scope ? due.where('nameserver_id', '=', scope.nameserverId) : due.where('zone_id', '=', scope.zoneId);
  await due.execute();

  // A key whose whole-zone job is still waiting unclaimed gets that publish anyway: a second job would only make
  // the same comparison again. A claimed one may have read its plan already, so the key gets a new job.
  let keys = trx.selectFrom('dns.zone_nameservers as zn')
    .innerJoin('dns.zones as z', 'z.id', 'zn.zone_id')
    .select((s) => ['zn.nameserver_id', 'zn.zone_id', s.val(now).as('created_at'), s.val(now).as('next_attempt_at')])
    .where('z.deleted_at', 'is', null)
    .where('zn.nameserver_id', 'in', reachable)
    .where(({ not, exists, selectFrom }) => not(exists(
      selectFrom('dns.publish_jobs as w').select('w.id')
        .whereRef('w.nameserver_id', '=', 'zn.nameserver_id').whereRef('w.zone_id', '=', 'zn.zone_id')
        .where('w.rrsets', 'is', null).where('w.lease_until', 'is', null),
    )));
  if ('zoneId' in scope) keys = keys.where('zn.zone_id', '=', scope.zoneId);
  const inserted = await trx.insertInto('dns.publish_jobs')
    .columns(['nameserver_id', 'zone_id', 'created_at', 'next_attempt_at'])
    .expression(keys)
    .executeTakeFirst();
  return { queued: Number(inserted.numInsertedOrUpdatedRows ?? 0), nameservers };
}
