import { createHash } from 'node:crypto';
import { sql, type CompiledQuery, type SelectQueryBuilder } from 'kysely';
import { executeNamed } from '@keyzone/db';
import type { Db } from './db';

// Shared by the paged list queries (zones, records): search patterns and the counts of meta.pagination.

/** An ILIKE pattern matching `search` anywhere, with %, _ and \ in it taken literally. */
export function containsPattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * One page of rows with the counts meta.pagination needs: everything in scope (total) and what matches the
 * filters (filtered). `page` is `matching` with its columns, order, limit and offset: it carries the filtered
 * count as a window over the rows it pages, so a list without a filter is one query; with a filter, the total is
 * counted beside it. Only a page past the end (no row to carry the window) counts apart. The page runs as a named
 * statement (listStatementName): PostgreSQL plans a list query once per connection instead of on every request.
 */
export async function countedPage<DB, TB extends keyof DB, R extends object, T>(
  db: Db,
  scope: SelectQueryBuilder<DB, TB, object>,
  matching: SelectQueryBuilder<DB, TB, object>,
  page: SelectQueryBuilder<DB, TB, R>,
  /** Builds each row the caller returns from the fields it names (a row also carries the count's column). */
  toRow: (row: R) => T,
): Promise<{ rows: T[]; total: number; filtered: number }> {
  const filtering = matching !== scope;
  const compiled = page.select(sql<string>`count(*) over ()`.as(FILTERED)).compile() as CompiledQuery<R & { [FILTERED]: string | number }>;
  const name = listStatementName(compiled.sql);
  const [counted, scopeTotal] = await Promise.all([
    name ? executeNamed(db, name, compiled) : db.executeQuery(compiled).then((result) => result.rows),
    filtering ? count(scope) : undefined,
  ]);
  const first = counted[0];
  if (first === undefined) {
    const [total, filtered] = await Promise.all([scopeTotal ?? count(scope), filtering ? count(matching) : undefined]);
    return { rows: [], total, filtered: filtered ?? total };
  }
  const filtered = Number(first[FILTERED]);
  return { rows: counted.map(toRow), total: scopeTotal ?? filtered, filtered };
}

// A list's SQL varies with its filters, sort and scope, so each text gets its own statement name. The texts are a
// bounded set (the routes' filter and sort combinations); past LIST_STATEMENTS_NAMED distinct texts, the rest
// run unnamed, so no caller can make the server keep statements without end.
const LIST_STATEMENTS_NAMED = 256;
const listStatementNames = new Map<string, string>();

function listStatementName(text: string): string | undefined {
  let name = listStatementNames.get(text);
  if (name === undefined && listStatementNames.size < LIST_STATEMENTS_NAMED) {
    name = `kz_list_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
    listStatementNames.set(text, name);
  }
  return name;
}

const FILTERED = 'keyzone_filtered_count';

async function count<DB, TB extends keyof DB>(query: SelectQueryBuilder<DB, TB, object>): Promise<number> {
  // Kysely cannot see the alias through the generic builder; the row is { n } (count(*) is int8: text from pg).
  const row = (await query.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow()) as { n: string | number };
  return Number(row.n);
}
