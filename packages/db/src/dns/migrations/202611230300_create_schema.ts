// Creates schema `dns`; the tables come in later migrations.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create schema if not exists dns`.execute(db);
}
