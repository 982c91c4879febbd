// Sign-in with any OpenID Connect provider (issue 40): a provider's subject is an opaque string (Entra ID's is not a
// uuid), and a subject of a provider other than the auth server of auth.yml is stored as `<issuer>#<sub>`, so the
// column holds text (up to 1024 characters; auth-server subs stay their uuid text).
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table dns.user_identities alter column sub type text using sub::text`.execute(db);
  await sql`alter table dns.user_identities add constraint user_identities_sub_length check (char_length(sub) between 1 and 1024)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table dns.user_identities drop constraint user_identities_sub_length`.execute(db);
  await sql`alter table dns.user_identities alter column sub type uuid using sub::uuid`.execute(db);
}
