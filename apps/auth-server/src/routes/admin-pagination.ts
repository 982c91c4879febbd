// page/per_page for the admin listings and the X-Total-Count + Link headers in the exact form
// auth-js parses (reference §10.3): it splits the header on ',', takes the text after the first
// '=' inside <...> as the page number and JSON-parses the quoted rel. So `page=` must be the first
// query parameter and rel must be double-quoted. The URL is the request's own path (relative, with
// the /auth/v1 prefix when the request had it), as GoTrue builds it.
import type { Request } from 'express';
import { ApiError, ErrorCode } from '../errors';

export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 1000;

function positiveInt(raw: unknown, name: string): number | undefined {
  if (raw === undefined || raw === '') return undefined; // auth-js sends page= and per_page= empty
  if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw) || Number(raw) === 0) {
    throw new ApiError(400, ErrorCode.validation_failed, `Bad Pagination Parameters: ${name} must be a positive integer`);
  }
  return Number(raw);
}

/**
 * Cursor mode (GoTrue's keyset pagination) is asked for with `limit` and/or `cursor`, and no
 * page/per_page: returns the limit (default 50, at most 1000) and the cursor, else undefined.
 */
export function parseCursorMode(req: Request): { limit: number; cursor: string | undefined } | undefined {
  const q = req.query;
  const given = (v: unknown) => v !== undefined && v !== '';
  if ((!given(q.limit) && !given(q.cursor)) || given(q.page) || given(q.per_page)) return undefined;
  const limit = Math.min(positiveInt(q.limit, 'limit') ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  if (q.cursor !== undefined && typeof q.cursor !== 'string') {
    throw new ApiError(400, ErrorCode.validation_failed, 'Bad Pagination Parameters: invalid cursor');
  }
  return { limit, cursor: q.cursor || undefined };
}

/** Cursor mode's Link: rel="next" carrying the next cursor (none on the last page). */
export function cursorLinkHeader(req: Request, limit: number, nextCursor: string | undefined): Record<string, string> {
  if (!nextCursor) return {};
  const params = Object.entries(req.query).filter(
    (entry): entry is [string, string] => !['page', 'per_page', 'cursor', 'limit'].includes(entry[0]) && typeof entry[1] === 'string',
  );
  params.push(['cursor', nextCursor], ['limit', String(limit)]);
  params.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { Link: `<${req.baseUrl + req.path}?${new URLSearchParams(params).toString()}>; rel="next"` };
}

/** page (default 1) and per_page (default 50, at most 1000: larger values are clamped). */
export function parsePagination(req: Request): { page: number; perPage: number } {
  const page = positiveInt(req.query.page, 'page') ?? 1;
  const perPage = Math.min(positiveInt(req.query.per_page, 'per_page') ?? DEFAULT_PER_PAGE, MAX_PER_PAGE);
  return { page, perPage };
}

export function totalPages(total: number, perPage: number): number {
  return Math.ceil(total / perPage);
}

/** X-Total-Count and Link (rel="next" while a next page exists, rel="last" always). */
export function paginationHeaders(
  req: Request,
  p: { page: number; perPage: number; total: number },
): Record<string, string> {
  const others = Object.entries(req.query)
    .filter((entry): entry is [string, string] => entry[0] !== 'page' && entry[0] !== 'per_page' && typeof entry[1] === 'string')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const path = req.baseUrl + req.path;
  const link = (page: number) => {
    const query = new URLSearchParams([['page', String(page)], ['per_page', String(p.perPage)], ...others]);
    return `<${path}?${query.toString()}>`;
  };
  const last = totalPages(p.total, p.perPage);
  const parts: string[] = [];
  if (last > p.page) parts.push(`${link(p.page + 1)}; rel="next"`);
  parts.push(`${link(last)}; rel="last"`);
  return { 'X-Total-Count': String(p.total), Link: parts.join(', ') };
}
