// GET /admin/audit?page&per_page[&user_id&actor_id&action] (reference §1.3; the filters are Keyzone's): the audit log, newest first, as a JSON array
// with the same X-Total-Count and Link headers as /admin/users. Guarded by requireAdmin.
// GET /admin/audit?limit&cursor[&filters] (Keyzone's cursor mode, the wire of /admin/users' cursor mode): an object
// {entries, pagination: {next_cursor?, has_more}} and a Link rel="next" carrying the next cursor; no total, so the
// page after a million entries costs what the first costs. page/per_page keep GoTrue's array.
import type { RequestHandler } from 'express';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { refuseUnstorable } from '../http/body';
import { listAuditEntries, listAuditEntriesAfterCursor, type AuditFilters } from '../services/admin/audit-log';
import { isUuid } from '../uuid';
import { cursorLinkHeader, paginationHeaders, parseCursorMode, parsePagination } from './admin-pagination';

/** Keyzone's filters (the admin console's): user_id (actor or subject), actor_id, action. */
function auditFilters(query: Record<string, unknown>): AuditFilters {
  const text = (name: string, check: (v: string) => boolean, rule: string): string | undefined => {
    const raw = query[name];
    if (raw === undefined || raw === '') return undefined;
    refuseUnstorable(raw, name);
    if (typeof raw !== 'string' || !check(raw)) throw new ApiError(400, ErrorCode.validation_failed, `${name} must be ${rule}`);
    return raw;
  };
  return {
    userId: text('user_id', isUuid, 'a user id (UUID)'),
    actorId: text('actor_id', (v) => v.length <= 255, 'at most 255 characters of text'),
    action: text('action', (v) => /^[a-z_]{1,64}$/.test(v), 'an audit action such as login or user_modified'),
  };
}

export function listAdminAudit(deps: Deps): RequestHandler {
  return async (req, res) => {
    const cursorMode = parseCursorMode(req);
    if (cursorMode) {
      const result = await listAuditEntriesAfterCursor(deps, { ...cursorMode, filters: auditFilters(req.query as Record<string, unknown>) });
      res.set(cursorLinkHeader(req, cursorMode.limit, result.pagination.next_cursor));
      res.json(result);
      return;
    }
    const { page, perPage } = parsePagination(req);
    const { entries, total } = await listAuditEntries(deps, page, perPage, auditFilters(req.query as Record<string, unknown>));
    res.set(paginationHeaders(req, { page, perPage, total }));
    res.json(entries);
  };
}
