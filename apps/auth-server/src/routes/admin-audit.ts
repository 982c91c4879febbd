// GET /admin/audit?page&per_page (reference §1.3): the audit log, newest first, as a JSON array
// with the same X-Total-Count and Link headers as /admin/users. Guarded by requireAdmin.
import type { RequestHandler } from 'express';
import type { Deps } from '../deps';
import { listAuditEntries } from '../services/admin/audit-log';
import { paginationHeaders, parsePagination } from './admin-pagination';

export function listAdminAudit(deps: Deps): RequestHandler {
  return async (req, res) => {
    const { page, perPage } = parsePagination(req);
    const { entries, total } = await listAuditEntries(deps, page, perPage);
    res.set(paginationHeaders(req, { page, perPage, total }));
    res.json(entries);
  };
}
