import { z } from 'zod';
import type { Deps } from '../deps';
import { meta } from '../http/envelope';
import { defineRoute, type AnyRoute } from '../http/route';
import { idParams } from '../http/schemas';
import { auditEntrySchema, listEnvelopeSchema, type AuditEntryWire } from '../serialize-zones';
import type { Caller } from '../services/access/caller';
import { intQuery, paging } from './dns-inputs';
import { errorExamples } from './examples';

// GET /<object>/:id/history for every object with an audit trail: one page of entries, oldest first.

const historyQuery = z.object({ limit: intQuery(1, 1000, 100, 'page size'), offset: paging.offset }).strict();
const historyResponseSchema = listEnvelopeSchema('history', auditEntrySchema);
const historyExample = {
  history: [{
    id: 311, object: 'zone_record', object_id: 99, action: 'update', user: { id: 4096 }, at: '2026-11-23T10:00:00.000Z', ip: '192.0.2.80',
    before: { id: 99, zid: 12, owner: 'www.example.com.', type: 'A', ttl: 3600, description: '', deleted: false, address: '192.0.2.10' },
    after: { id: 99, zid: 12, owner: 'www.example.com.', type: 'A', ttl: 3600, description: '', deleted: false, address: '192.0.2.11' },
  }],
  meta: { api: { version: '0.1.0' }, msg: 'here is the history', pagination: { total: 1, filtered: 1, limit: 100, offset: 0 } },
};

type LoadHistory = (deps: Deps, caller: Caller, id: number, page: { limit: number; offset: number }) => Promise<{ entries: AuditEntryWire[]; total: number }>;

export function historyRoute(spec: { path: string; summary: string; description?: string; what: string; load: LoadHistory }): AnyRoute {
  return defineRoute({
    method: 'get', path: spec.path, auth: 'session',
    summary: spec.summary, description: spec.description,
    params: idParams, query: historyQuery,
    responses: {
      200: { description: 'History entries, oldest first', schema: historyResponseSchema, example: historyExample },
      400: errorExamples.badInput, 401: errorExamples.missingAuthentication, 403: errorExamples.forbidden, 404: errorExamples.notFound(spec.what),
    },
    async handler({ params, query }, { deps, caller }) {
      const { entries, total } = await spec.load(deps, caller, params.id, query);
      return { body: { history: entries, meta: { ...meta('here is the history'), pagination: { total, filtered: total, limit: query.limit, offset: query.offset } } } };
    },
  });
}
