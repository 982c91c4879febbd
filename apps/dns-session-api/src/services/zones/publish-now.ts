// Who may say "publish now" (issue 42): for a nameserver, whoever may change it (PUT /nameserver/<id>: its group or
// a group above, with nameserver_write); for a zone, whoever may change the zone (zone_write). Anyone else gets the
// answer GET gives them for that object, so the route tells nothing GET does not. The queueing itself is
// publishing/publish-now.ts; a publish-now changes no object, so it is logged (who, from where, what) rather than
// written to the audit history, whose actions are the object's changes.
import type { Deps } from '../../deps';
import { conflict, notFound } from '../../errors';
import { publishStatus, type PublishStatus } from '../../publishing/publisher';
import { queuePublishNow, type PublishNowTarget } from '../../publishing/publish-now';
import { unpublishedReason } from '../../publishing/queue';
import { findNameserverById } from '../../queries/nameservers';
import { findZoneById } from '../../queries/zones';
import type { Caller } from '../access/caller';
import { assertGroupAccess, assertNameserverUsable } from './dns-access';

const PUBLISHING_OFF = 'Publishing is off (publish.yml enabled: false): nothing can be published now';

/** Queues every live zone of the nameserver; the nameserver's publishing status afterwards. */
export async function publishNameserverNow(deps: Deps, caller: Caller, id: number): Promise<{ status: PublishStatus; queued: number }> {
  const config = deps.config.publish;
  const queued = await deps.db.transaction().execute(async (trx) => {
    const ns = await findNameserverById(trx, id);
    if (!ns || ns.deleted_at) throw notFound('Nameserver not found');
    // GET's answer first (a nameserver of an unrelated group), then the write rule (one of a group above).
    await assertNameserverUsable(trx, caller, ns.group_id);
    await assertGroupAccess(trx, caller, ns.group_id, 'nameserver');
    if (!config.enabled) throw conflict(PUBLISHING_OFF);
    const reason = unpublishedReason(config, ns);
    if (reason) throw conflict(`Nothing is published to ${ns.name}: ${reason}`);
    return (await queuePublishNow(trx, config, deps.clock.now(), { nameserverId: id })).queued;
  });
  deps.log.info({ user: caller.userId, ip: caller.ip, apiToken: caller.apiToken?.id, nameserver: id, queued }, 'publish now: nameserver');
  return { status: await publishStatus(deps.db, id, null), queued };
}

/** Queues the zone for each of its nameservers that is published; which ones were and why the others were not. */
export async function publishZoneNow(deps: Deps, caller: Caller, id: number): Promise<{ zone_id: number; queued: number; nameservers: PublishNowTarget[] }> {
  const config = deps.config.publish;
  const result = await deps.db.transaction().execute(async (trx) => {
    const zone = await findZoneById(trx, id);
    if (!zone || zone.deleted_at) throw notFound('Zone not found');
    await assertGroupAccess(trx, caller, zone.group_id, 'zone');
    if (!config.enabled) throw conflict(PUBLISHING_OFF);
    const queued = await queuePublishNow(trx, config, deps.clock.now(), { zoneId: id });
    if (queued.nameservers.length === 0) throw conflict('The zone has no nameservers: assign one to publish it');
    if (queued.nameservers.every((n) => n.not_published !== null)) {
      throw conflict(`None of the zone's nameservers is published: ${queued.nameservers.map((n) => `${n.name} (${n.not_published})`).join('; ')}`);
    }
    return queued;
  });
  deps.log.info({ user: caller.userId, ip: caller.ip, apiToken: caller.apiToken?.id, zone: id, queued: result.queued }, 'publish now: zone');
  return { zone_id: id, ...result };
}
