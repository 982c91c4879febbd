import { sql, type SelectQueryBuilder } from 'kysely';

// Shared by the paged list queries (zones, records): search patterns and the counts of meta.pagination.

/** An ILIKE pattern matching `search` anywhere, with %, _ and \ in it taken literally. */
export function containsPattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * One page of rows with the counts meta.pagination needs: everything in scope (total) and what matches the
 * filters (filtered). The three queries run together.
 */
export async function countedPage<DB, TB extends keyof DB, R>(
  scope: SelectQueryBuilder<DB, TB, object>,
  matching: SelectQueryBuilder<DB, TB, object>,
  page: Promise<R[]>,
): Promise<{ rows: R[]; total: number; filtered: number }> {
  const [total, filtered, rows] = await Promise.all([count(scope), count(matching), page]);
  return { rows, total, filtered };
}

async function count<DB, TB extends keyof DB>(query: SelectQueryBuilder<DB, TB, object>): Promise<number> {
  // Kysely cannot see the alias through the generic builder; the row is { n } (count(*) is int8: text from pg).
  const row = (await query.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow()) as { n: string | number };
  return Number(row.n);
}
