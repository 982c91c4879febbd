// Helpers shared by the auth migrations. Migrations never import ../schema.ts: a migration must keep
// meaning what it meant when it shipped.
import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/** Naming for one DB_NAMESPACE: tables, indexes and constraints get the prefix; types and functions do not. */
export interface AuthNames {
  /** Bare prefixed name for indexes/constraints: n('users_pkey') → 'ns_users_pkey'. */
  n(name: string): string;
  /** Qualified table name: t('users') → 'auth.ns_users'. */
  t(name: string): string;
}

/** `namespace` must already be validated (lowercase identifier) since names are spliced into SQL. */
export function authNames(namespace: string | undefined): AuthNames {
  const prefix = namespace ? `${namespace}_` : '';
  return { n: (name) => prefix + name, t: (name) => `auth.${prefix}${name}` };
}

/** Runs DDL statements one by one (PGlite's extended protocol takes one statement per query). */
export async function execAll(db: Kysely<unknown>, statements: string[]): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}

/** `create type` that tolerates an existing type (types are shared by every namespace). */
export function createEnum(qualifiedName: string, values: string[]): string {
  const list = values.map((v) => `'${v}'`).join(', ');
  return `do $$ begin create type ${qualifiedName} as enum (${list}); exception when duplicate_object then null; end $$`;
}

export type AuthMigrationUp = (db: Kysely<unknown>, names: AuthNames) => Promise<void>;
