// Zones that got the old default SOA mailbox "hostmaster.<zone>" although their name is not a host name (an RFC 2317
// zone such as 0/26.2.0.192.in-addr.arpa., a name with "_") or is too long for it: BIND refuses to load them ("bad
// name (check-names)"). They get the default the API now gives (issue 38): hostmaster at the nearest ancestor that is
// a host name and fits in 255 octets. The serial advances so secondaries take the change; `publish --all` sends it
// to the nameservers (a migration cannot know publish.yml).
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

const HOST_LABEL = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const LOCAL_PART = 'hostmaster';

/** As dns/soa.ts defaultMailbox in the app, for the names zones can have (no escapes: zone names hold none). */
export function defaultMailbox(zone: string): string {
  const labels = zone.replace(/\.$/, '').split('.').filter((l) => l !== '');
  let octets = 1 + 1 + LOCAL_PART.length;
  let start = labels.length;
  while (start > 0) {
    const label = labels[start - 1] as string;
    if (!HOST_LABEL.test(label) || octets + 1 + Buffer.byteLength(label) > 255) break;
    octets += 1 + Buffer.byteLength(label);
    start -= 1;
  }
  return `${[LOCAL_PART, ...labels.slice(start)].join('.')}.`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  // Only zones still on the old default, and of those only names with a label that is not a host name's, or long.
  const { rows } = await sql<{ id: number; name: string }>`
    select id, name from dns.zones
    where mailaddr = 'hostmaster.' || name
      and (name !~ '^([a-z0-9]([a-z0-9-]*[a-z0-9])?\\.)+$' or octet_length(name) > 243)`.execute(db);
  for (const { id, name } of rows) {
    const mailbox = defaultMailbox(name);
    if (mailbox === `hostmaster.${name}`) continue;
    await sql`update dns.zones set mailaddr = ${mailbox},
      serial = case when serial >= 4294967295 then 1 else serial + 1 end where id = ${id}`.execute(db);
  }
}
