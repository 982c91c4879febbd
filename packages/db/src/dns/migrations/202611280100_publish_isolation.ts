// Publishing isolation (issue 38): jobs are claimed with a lease instead of under one run-long transaction, a job
// says which RRsets its change touched (so PowerDNS gets only those), and what each nameserver was last given of
// each zone is kept (a PowerDNS whose serial is behind it gets the whole zone again).
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // rrsets: "<owner> <type>" keys the change touched; null = the zone itself changed (publish all of it).
  await sql`alter table dns.publish_jobs add column rrsets text[], add column lease_until timestamptz`.execute(db);
  await sql`create index publish_jobs_zone_idx on dns.publish_jobs (nameserver_id, zone_id, id)`.execute(db);
  await sql`
    create table dns.publish_zone_state (
      nameserver_id integer not null references dns.nameservers (id) on delete cascade,
      zone_id integer not null,
      serial bigint not null,
      published_at timestamptz not null,
      primary key (nameserver_id, zone_id)
    )`.execute(db);
}
