import { sql, type SelectQueryBuilder } from 'kysely';

// Shared by the paged list queries (zones, records): search patterns and the counts of meta.pagination.

/** An ILIKE pattern matching `search` anywhere, with %, _ and \ in it taken literally. */
export function containsPattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * One page of rows with the counts meta.pagination needs: everything in scope (total) and what matches the
 * filters (filtered). `page` is `matching` with its columns, order, limit and offset: it carries the filtered
 * count as a window over the rows it pages, so a list without a filter is one query; with a filter, the total is
 * counted beside it. Only a page past the end (no row to carry the window) counts apart.
 */
export async function countedPage<DB, TB extends keyof DB, R extends object>(
  scope: SelectQueryBuilder<DB, TB, object>,
  matching: SelectQueryBuilder<DB, TB, object>,
  page: SelectQueryBuilder<DB, TB, R>,
): Promise<{ rows: R[]; total: number; filtered: number }> {
  const filtering = matching !== scope;
  const [counted, scopeTotal] = await Promise.all([
    page.select(sql<string>`count(*) over ()`.as(FILTERED)).execute() as Promise<Array<R & { [FILTERED]: string | number }>>,
    filtering ? count(scope) : undefined,
  ]);
  const first = counted[0];
  if (first === undefined) {
    const [total, filtered] = await Promise.all([scopeTotal ?? count(scope), filtering ? count(matching) : undefined]);
    return { rows: [], total, filtered: filtered ?? total };
  }
  const filtered = Number(first[FILTERED]);
  const rows = counted.map(({ [FILTERED]: _count, ...row }) => row as unknown as R);
  return { rows, total: scopeTotal ?? filtered, filtered };
}

const FILTERED = 'keyzone_filtered_count';

async function count<DB, TB extends keyof DB>(query: SelectQueryBuilder<DB, TB, object>): Promise<number> {
  // Kysely cannot see the alias through the generic builder; the row is { n } (count(*) is int8: text from pg).
  const row = (await query.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow()) as { n: string | number };
  return Number(row.n);
}
