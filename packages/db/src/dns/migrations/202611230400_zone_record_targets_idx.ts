// The zone rules of a single record change look at records whose MX/NS/SRV target is a given name; without
// an index that is a scan of the whole zone (tens of milliseconds at 50k records).
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index zone_records_target_idx on dns.zone_records
      (zone_id, (coalesce(rdata->>'exchange', rdata->>'dname', rdata->>'target')))
      where deleted_at is null and type in ('MX', 'NS', 'SRV')`.execute(db);
}
