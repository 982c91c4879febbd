// import-nictool (issue 14): copies a NicTool database into Keyzone. Groups keep their tree, users keep their
// NicTool password hashes (verified as NicTool did and rehashed to bcrypt at the first login), nameservers,
// zones and their records follow, each zone with its records and nameservers in one transaction. Every object
// is recorded in dns.nictool_imports, so a second run finds it and changes nothing. Whatever is not imported
// (a name taken, a record Keyzone's rules refuse, a type Keyzone lacks) is listed in the summary with why.
// NicTool's deleted objects come along as deleted (restorable) objects.
import type { DnsConfig } from '@keyzone/config';
import type { Deps } from '../deps';
import { enqueuePublish } from '../publishing/queue';
import { defaultMailbox, mailboxToRname, MAX_SERIAL, normalizeName, SOA_DEFAULTS, type ZoneRecord } from '../dns';
import type { Db } from '../queries/db';
import { checkNameserverFields } from '../services/zones/nameservers';
import { checkZoneFields } from '../services/zones/zones';
import { childZoneGuard, zonePlacementConflict } from '../services/zones/zone-tenancy';
import { EXPORT_TYPES, nicToolPasswordScheme, refusal } from './mappings';
import { selectZoneRecords } from './zone-records';
import type { ImportSummary, Kind } from './summary';
import type { NicToolSource, NtGroup, NtNameserver, NtUser, NtZone } from './source';

export async function importNicTool(
  deps: Pick<Deps, 'db' | 'clock'>,
  source: NicToolSource,
  /**
   * `publish`: publish.yml when publishing is on: each imported live zone is queued for its nameservers.
   * `allowCrossGroupZones`: import a zone above or below a live zone of a group outside its own group's subtree
   * (NicTool allowed it; Keyzone's API refuses it without an administrator's delegation) instead of skipping it.
   */
  options: { dryRun: boolean; publish?: DnsConfig['publish']; allowCrossGroupZones?: boolean },
): Promise<ImportSummary> {
  const summary: ImportSummary = {
    dryRun: options.dryRun,
    imported: { group: 0, user: 0, nameserver: 0, zone: 0, record: 0 },
    unchanged: { group: 0, user: 0, nameserver: 0, zone: 0 },
    notes: [],
  };
  const run = async (db: Db) => {
    const importer = new Importer(db, deps.clock.now(), summary, options.publish?.enabled ? options.publish : undefined, options.allowCrossGroupZones ?? false);
    await importer.groups(await source.groups());
    await importer.users(await source.users());
    await importer.nameservers(await source.nameservers());
    for (const zone of await source.zones()) await importer.zone(zone, source);
  };
  if (options.dryRun) {
    // Everything in one transaction that is rolled back: the summary is exactly what a real run would do.
    await deps.db
      .transaction()
      .execute(async (trx) => {
        await run(trx);
        throw new DryRunDone();
      })
      .catch((err: unknown) => {
        if (!(err instanceof DryRunDone)) throw err;
      });
  } else {
    await run(deps.db);
  }
  return summary;
}

class DryRunDone extends Error {}

class Importer {
  private readonly ids: Record<Kind, Map<number, number>> = { group: new Map(), user: new Map(), nameserver: new Map(), zone: new Map() };
  private readonly nameserverNames = new Map<number, string>();

  constructor(
    private readonly db: Db,
    private readonly now: Date,
    private readonly summary: ImportSummary,
    private readonly publish: DnsConfig['publish'] | undefined,
    private readonly allowCrossGroupZones: boolean,
  ) {}

  private note(kind: Kind | 'record', nictoolId: number, name: string, reason: string): void {
    this.summary.notes.push({ kind, nictoolId, name, reason });
  }

  /** One transaction per object; inside a dry run everything already shares one. */
  private async atomically<T>(work: (db: Db) => Promise<T>): Promise<T> {
    return this.db.isTransaction ? work(this.db) : this.db.transaction().execute(work);
  }

  private async mapped(kind: Kind, nictoolId: number): Promise<number | undefined> {
    const row = await this.db
      .selectFrom('dns.nictool_imports')
      .select('local_id')
      .where('kind', '=', kind)
      .where('nictool_id', '=', nictoolId)
      .executeTakeFirst();
    return row?.local_id;
  }

  private async remember(db: Db, kind: Kind, nictoolId: number, localId: number): Promise<void> {
    await db.insertInto('dns.nictool_imports').values({ kind, nictool_id: nictoolId, local_id: localId }).execute();
    this.ids[kind].set(nictoolId, localId);
    this.summary.imported[kind] += 1;
  }

  private async known(kind: Kind, nictoolId: number): Promise<boolean> {
    const local = await this.mapped(kind, nictoolId);
    if (local === undefined) return false;
    this.ids[kind].set(nictoolId, local);
    this.summary.unchanged[kind] += 1;
    return true;
  }

  /** Parents before children, whatever the id order. Group names are unique in Keyzone (logins use them). */
  async groups(groups: NtGroup[]): Promise<void> {
    const byId = new Map(groups.map((g) => [g.id, g]));
    const done = new Set<number>();
    const visit = async (group: NtGroup, path: Set<number>): Promise<void> => {
      if (done.has(group.id)) return;
      if (path.has(group.id)) {
        this.note('group', group.id, group.name, 'its parent chain loops back to itself; not imported');
        done.add(group.id);
        return;
      }
      const parent = group.parentId === 0 ? undefined : byId.get(group.parentId);
      if (group.parentId !== 0 && !parent) {
        this.note('group', group.id, group.name, `its parent group ${group.parentId} does not exist; not imported`);
        done.add(group.id);
        return;
      }
      if (parent) await visit(parent, new Set([...path, group.id]));
      done.add(group.id);
      if (await this.known('group', group.id)) return;
      const parentId = parent ? this.ids.group.get(parent.id) : null;
      if (parent && parentId === undefined) {
        this.note('group', group.id, group.name, `its parent group ${parent.id} was not imported; not imported`);
        return;
      }
      await this.atomically(async (db) => {
        const name = await this.freeGroupName(db, group);
        const row = await db
          .insertInto('dns.groups')
          .values({ parent_id: parentId ?? null, name, deleted_at: group.deleted ? this.now : null, created_at: this.now, updated_at: this.now })
          .returning('id')
          .executeTakeFirstOrThrow();
        await this.remember(db, 'group', group.id, row.id);
      });
    };
    for (const group of groups) await visit(group, new Set());
  }

  private async freeGroupName(db: Db, group: NtGroup): Promise<string> {
    if (group.deleted) return group.name; // deleted groups do not hold their name
    const taken = async (name: string) =>
      (await db.selectFrom('dns.groups').select('id').where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase())).where('deleted_at', 'is', null).executeTakeFirst()) !== undefined;
    if (!(await taken(group.name))) return group.name;
    const renamed = `${group.name.slice(0, 240)}-nt${group.id}`;
    this.note('group', group.id, group.name, `the name is already used (group names are unique in Keyzone: logins use them); imported as "${renamed}", so its users log in as user@${renamed}`);
    return renamed;
  }

  async users(users: NtUser[]): Promise<void> {
    for (const user of users) {
      if (await this.known('user', user.id)) continue;
      const groupId = this.ids.group.get(user.groupId);
      if (groupId === undefined) {
        this.note('user', user.id, user.username, `its group ${user.groupId} was not imported; not imported`);
        continue;
      }
      await this.atomically(async (db) => {
        if (!user.deleted) {
          const clash = await db
            .selectFrom('dns.users')
            .select('id')
            .where('group_id', '=', groupId)
            .where((eb) => eb(eb.fn('lower', ['username']), '=', user.username.toLowerCase()))
            .where('deleted_at', 'is', null)
            .executeTakeFirst();
          if (clash) {
            this.note('user', user.id, user.username, 'another live user of that group has this username (any case); not imported');
            return;
          }
        }
        const row = await db
          .insertInto('dns.users')
          .values({
            group_id: groupId, username: user.username, email: user.email, first_name: user.firstName, last_name: user.lastName,
            password_hash: user.password, password_scheme: nicToolPasswordScheme(user), salt: user.salt, is_admin: user.isAdmin,
            deleted_at: user.deleted ? this.now : null, created_at: this.now, updated_at: this.now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await this.remember(db, 'user', user.id, row.id);
      });
    }
  }

  async nameservers(nameservers: NtNameserver[]): Promise<void> {
    for (const ns of nameservers) {
      const name = normalizeName(ns.name.endsWith('.') ? ns.name : `${ns.name}.`);
      this.nameserverNames.set(ns.id, name);
      if (await this.known('nameserver', ns.id)) continue;
      // The API's own rules: names from the source end up in zone files and server configuration.
      const invalid = refusal(() => checkNameserverFields({ name: ns.name, address: ns.address, address6: ns.address6, ttl: ns.ttl ?? undefined }));
      if (invalid) {
        this.note('nameserver', ns.id, ns.name, `${invalid}; not imported`);
        continue;
      }
      const groupId = this.ids.group.get(ns.groupId);
      if (groupId === undefined) {
        this.note('nameserver', ns.id, ns.name, `its group ${ns.groupId} was not imported; not imported`);
        continue;
      }
      const exportType = EXPORT_TYPES[ns.exportType ?? 'bind'];
      if (!exportType) this.note('nameserver', ns.id, ns.name, `export type "${ns.exportType}" has no Keyzone counterpart; imported as bind`);
      await this.atomically(async (db) => {
        if (!ns.deleted) {
          const clash = await db.selectFrom('dns.nameservers').select('id').where('name', '=', name).where('deleted_at', 'is', null).executeTakeFirst();
          if (clash) {
            this.note('nameserver', ns.id, ns.name, 'a live nameserver of that name exists; not imported');
            return;
          }
        }
        const row = await db
          .insertInto('dns.nameservers')
          .values({
            group_id: groupId, name, address: ns.address, address6: ns.address6, ttl: ns.ttl ?? 3600, description: ns.description,
            export_type: exportType ?? 'bind', deleted_at: ns.deleted ? this.now : null, created_at: this.now, updated_at: this.now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await this.remember(db, 'nameserver', ns.id, row.id);
      });
    }
  }

  async zone(zone: NtZone, source: NicToolSource): Promise<void> {
    if (await this.known('zone', zone.id)) return;
    const groupId = this.ids.group.get(zone.groupId);
    const name = normalizeName(zone.zone.endsWith('.') ? zone.zone : `${zone.zone}.`);
    const invalid = refusal(() => checkZoneFields({
      zone: zone.zone, mailaddr: zone.mailaddr || undefined, refresh: zone.refresh ?? undefined, retry: zone.retry ?? undefined,
      expire: zone.expire ?? undefined, minimum: zone.minimum ?? undefined, ttl: zone.ttl ?? undefined,
    }));
    if (invalid) {
      this.note('zone', zone.id, zone.zone, `${invalid}; not imported (nor its records)`);
      return;
    }
    if (groupId === undefined) {
      this.note('zone', zone.id, name, `its group ${zone.groupId} was not imported; not imported`);
      return;
    }
    const nameserverIds = zone.nameserverIds.filter((id) => this.ids.nameserver.has(id));
    for (const id of zone.nameserverIds.filter((i) => !this.ids.nameserver.has(i))) {
      this.note('zone', zone.id, name, `nameserver ${id} was not imported; the zone is imported without it`);
    }
    const records = selectZoneRecords(
      name,
      nameserverIds.map((id) => this.nameserverNames.get(id) ?? ''),
      await source.records(zone.id),
      (nictoolId, what, reason) => this.note('record', nictoolId, what, reason),
    );
    await this.atomically(async (db) => {
      if (!zone.deleted) {
        const clash = await db.selectFrom('dns.zones').select('id').where('name', '=', name).where('deleted_at', 'is', null).executeTakeFirst();
        if (clash) {
          this.note('zone', zone.id, name, 'a live zone of that name exists; not imported (nor its records)');
          return;
        }
        // The API's tenancy rule, with the zone's group as the one creating it (a deleted zone is checked when restored).
        const crossGroup = await zonePlacementConflict(db, { groupId }, { name, groupId });
        if (crossGroup && !this.allowCrossGroupZones) {
          this.note('zone', zone.id, name, `${crossGroup}; not imported (nor its records); --allow-cross-group-zones imports it`);
          return;
        }
        if (crossGroup) this.note('zone', zone.id, name, `${crossGroup}; imported as --allow-cross-group-zones asks`);
      }
      // Records at or below a live zone Keyzone holds of its own belong to that zone (NS, DS and glue aside).
      const guard = await childZoneGuard<ZoneRecord>(db, name);
      const belowChild = new Map<ZoneRecord, string>();
      for (const { record, deleted } of records) {
        const reason = deleted ? undefined : guard.check(record);
        if (reason) belowChild.set(record, reason);
      }
      for (const { record, reason } of guard.finish()) belowChild.set(record, reason);
      const kept = records.filter((entry) => {
        const reason = belowChild.get(entry.record);
        if (reason) this.note('record', entry.nictoolId, `${entry.record.owner} ${entry.record.type} in ${name}`, `${reason}; not imported`);
        return !reason;
      });
      const serial = zone.serial !== null && zone.serial >= 0 && zone.serial <= MAX_SERIAL ? zone.serial : 0;
      const row = await db
        .insertInto('dns.zones')
        .values({
          group_id: groupId, name, description: zone.description,
          mailaddr: zone.mailaddr ? mailboxToRname(zone.mailaddr) : defaultMailbox(name),
          serial, refresh: zone.refresh ?? SOA_DEFAULTS.refresh, retry: zone.retry ?? SOA_DEFAULTS.retry,
          expire: zone.expire ?? SOA_DEFAULTS.expire, minimum: zone.minimum ?? SOA_DEFAULTS.minimum, ttl: zone.ttl ?? SOA_DEFAULTS.ttl,
          deleted_at: zone.deleted ? this.now : null, created_at: this.now, updated_at: this.now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (nameserverIds.length > 0) {
        await db
          .insertInto('dns.zone_nameservers')
          .values(nameserverIds.map((id, position) => ({ zone_id: row.id, nameserver_id: this.ids.nameserver.get(id) as number, position })))
          .execute();
      }
      if (kept.length > 0) {
        await db
          .insertInto('dns.zone_records')
          .values(kept.map(({ record, description, deleted }) => ({
            zone_id: row.id, owner: record.owner, type: record.type, ttl: record.ttl, rdata: JSON.stringify(record.rdata), description,
            deleted_at: deleted ? this.now : null, created_at: this.now, updated_at: this.now,
          })))
          .execute();
      }
      await this.remember(db, 'zone', zone.id, row.id);
      // With publishing on, the zone goes out to its nameservers like any change (in the same transaction).
      if (this.publish && !zone.deleted) await enqueuePublish(db, this.publish, row.id, this.now);
      this.summary.imported.record += kept.length;
    });
  }
}
