// Incremental zone transfers (IXFR, RFC 1995; issue 44) from the history Keyzone keeps: the audit log says what
// changed in each record, but not which zone serial a change belongs to. A trigger on dns.zones writes every serial a
// zone takes (and the one before) to dns.zone_serials, and both tables carry the writing transaction's id, so the
// entries of one transaction belong to the last serial it left, however many times it advanced it (the serials in
// between were never visible to anyone). A trigger rather than application code: every path that changes a serial
// (API, zone files, UPDATE, PowerDNS API, nameserver changes, secondary refreshes) is covered. Entries written before
// this migration have no transaction id: an IXFR from a serial that old is answered with the whole zone.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // Added without a default, then given one: a volatile default on ADD COLUMN would stamp every existing row with
  // this migration's transaction.
  await sql`alter table dns.audit_log add column txid bigint`.execute(db);
  await sql`alter table dns.audit_log alter column txid set default txid_current()`.execute(db);
  await sql`create index audit_log_zone_txid_idx on dns.audit_log (zone_id, txid) where txid is not null`.execute(db);
  await sql`create index audit_log_txid_idx on dns.audit_log (txid) where txid is not null`.execute(db);
  await sql`
    create table dns.zone_serials (
      id bigserial primary key,
      zone_id integer not null references dns.zones(id) on delete cascade,
      serial bigint not null,
      previous bigint,
      txid bigint not null default txid_current(),
      at timestamptz not null default now()
    )`.execute(db);
  await sql`create index zone_serials_zone_idx on dns.zone_serials (zone_id, id)`.execute(db);
  await sql`
    create function dns.zone_serials_record() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        insert into dns.zone_serials (zone_id, serial, previous) values (new.id, new.serial, null);
      elsif new.serial is distinct from old.serial or new.deleted_at is distinct from old.deleted_at then
        insert into dns.zone_serials (zone_id, serial, previous) values (new.id, new.serial, old.serial);
      end if;
      return null;
    end
    $$`.execute(db);
  await sql`
    create trigger zones_serial_history after insert or update of serial, deleted_at on dns.zones
    for each row execute function dns.zone_serials_record()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger zones_serial_history on dns.zones`.execute(db);
  await sql`drop function dns.zone_serials_record()`.execute(db);
  await sql`drop table dns.zone_serials`.execute(db);
  await sql`alter table dns.audit_log drop column txid`.execute(db);
}
