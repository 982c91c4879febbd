import { z } from 'zod';
import { envelope, meta } from '../http/envelope';
import { defineRoute, type RouteFamily } from '../http/route';
import { deletedQuery, idNumber, idParams, idString } from '../http/schemas';
import { RECORD_TYPES, SIGNER_TYPES } from '../dns';
import { listEnvelopeSchema, rdataFieldSchemas, serializeZoneRecord, zoneRecordResponseSchema, zoneRecordSchema } from '../serialize-zones';
import { recordHistory } from '../services/audit/history';
import { changeZoneRecord, createZoneRecord, deleteZoneRecord, getZoneRecord, listZoneRecords, RECORD_SORT_KEYS } from '../services/zones/zone-records';
import { deletedFlag, paging, plainText, ttl } from './dns-inputs';
import { errorExamples } from './examples';
import { historyRoute } from './history';

const rdataFields = rdataFieldSchemas();
const rdataNames = Object.keys(rdataFields);
const optionalRdata = Object.fromEntries(Object.entries(rdataFields).map(([k, v]) => [k, v.optional()]));

const base = {
  owner: z.string().min(1).max(255).meta({ description: 'relative to the zone ("www", "@") or fully qualified; stored fully qualified', example: 'www' }),
  // The signer's types are taken here so that the answer says why they are refused (the record check does).
  type: z.enum([...RECORD_TYPES, ...SIGNER_TYPES]).meta({
    description: `${RECORD_TYPES.join(', ')}. ${SIGNER_TYPES.join(', ')} are refused: the DNSSEC signer makes them when a zone is signed`,
  }),
  ttl: ttl.optional().meta({ description: 'default: the TTL of the RRset it joins, else the zone\'s' }),
  description: plainText(255).optional(),
};

const createBody = z.object({ zid: idNumber.meta({ description: 'the zone', example: 12 }), ...base, ...optionalRdata }).strict();
const updateBody = z
  .object({
    owner: base.owner.optional(), type: base.type.optional(), ttl: base.ttl, description: base.description, ...optionalRdata,
    deleted: z.literal(false).optional().meta({ description: 'false restores a deleted record' }),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'at least one field is required');

/** Splits a body into the record's own fields and its RDATA fields. */
function splitBody<T extends Record<string, unknown>>(body: T) {
  const rdata: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) (rdataNames.includes(k) ? rdata : rest)[k] = v;
  return { rest, rdata };
}

const example = { id: 99, zid: 12, owner: 'www.example.com.', type: 'A', ttl: 3600, description: '', deleted: false, address: '192.0.2.10' };
const reply = (msg: string) => ({ zone_record: example, meta: { api: { version: '0.1.0' }, msg } });
const badRecord = {
  description: 'Invalid record: the message names each field and rule; `errors` lists them',
  example: {
    statusCode: 400, error: 'Bad Request',
    message: 'Invalid zone record: type (cname_exclusive): RRset www.example.com. IN CNAME: a CNAME must be alone at its owner, found also A',
    errors: [{ field: 'type', rule: 'cname_exclusive', message: 'RRset www.example.com. IN CNAME: a CNAME must be alone at its owner, found also A' }],
  },
};
const common = { 401: errorExamples.missingAuthentication, 403: errorExamples.forbidden, 404: errorExamples.notFound('Zone record') };

const listQuery = {
  deleted: deletedFlag, search: plainText(255).optional(), type: plainText(10).optional().transform((v) => v?.toUpperCase()),
  sort_by: z.enum(RECORD_SORT_KEYS).optional().transform((v) => v ?? 'owner').meta({ description: 'id, owner (default), type or ttl' }),
  ...paging,
};

/**
 * The records of a zone, a page at a time: GET /zone/<id>/records, and NicTool's GET /zone_record?zid=<id>.
 * `search` matches owner, RDATA and description; `type` filters by record type.
 */
export function recordListRoute(path: '/zone/:id/records' | '/zone_record') {
  const inPath = path === '/zone/:id/records';
  return defineRoute({
    method: 'get', path, auth: 'session',
    summary: inPath ? 'The records of a zone' : 'The records of a zone (NicTool: GET /zone_record?zid=)',
    description: '`search` matches owner, RDATA and description; `type` filters by record type.',
    params: inPath ? idParams : undefined,
    query: z.object(inPath ? listQuery : { zid: idString.meta({ description: 'the zone' }), ...listQuery }).strict(),
    responses: {
      200: {
        description: 'A page of records', schema: listEnvelopeSchema('zone_record', zoneRecordSchema),
        example: { zone_record: [example], meta: { ...meta("here's your zone record(s)"), pagination: { total: 1, filtered: 1, limit: 100, offset: 0 } } },
      },
      400: errorExamples.badInput, ...common,
    },
    async handler({ params, query }, { deps, caller }) {
      const zoneId = inPath ? (params as { id: number }).id : (query as { zid: number }).zid;
      const { records, total, filtered } = await listZoneRecords(deps, caller, zoneId, {
        deleted: query.deleted, search: query.search, type: query.type, sortBy: query.sort_by, sortDir: query.sort_dir, limit: query.limit, offset: query.offset,
      });
      return { body: { zone_record: records, meta: { ...meta("here's your zone record(s)"), pagination: { total, filtered, limit: query.limit, offset: query.offset } } } };
    },
  });
}

export const zoneRecordRoutes: RouteFamily = {
  name: 'zone_record',
  description: `Zone records (${RECORD_TYPES.join(', ')}) with RFC field names; zone rules checked on every change`,
  routes: [
    recordListRoute('/zone_record'),
    defineRoute({
      method: 'get', path: '/zone_record/:id', auth: 'session',
      summary: 'A zone record by id', params: idParams, query: deletedQuery,
      responses: { 200: { description: 'The record', schema: zoneRecordResponseSchema, example: reply("here's your zone record") }, 400: errorExamples.badInput, ...common },
      async handler({ params, query }, { deps, caller }) {
        const row = await getZoneRecord(deps, caller, params.id, { deleted: query.deleted });
        return { body: envelope('zone_record', serializeZoneRecord(row), "here's your zone record") };
      },
    }),
    defineRoute({
      method: 'post', path: '/zone_record', auth: 'session', permission: ['zonerecord_create'],
      summary: 'Create a record',
      description: 'The type\'s fields (A/AAAA `address`, CNAME `cname`, MX `preference`+`exchange`, …) beside owner, type and ttl. ' +
        'Rejected with 400 when a field or a zone rule (CNAME alone at its owner, one TTL per RRset, no duplicates, inside the zone, …) is broken.',
      body: createBody, bodyExample: { zid: 12, owner: 'www', type: 'A', ttl: 3600, address: '192.0.2.10' },
      responses: { 201: { description: 'Created', schema: zoneRecordResponseSchema, example: reply('the zone record was created') }, 400: badRecord, ...common },
      async handler({ body }, { deps, caller }) {
        const { rest, rdata } = splitBody(body);
        const row = await createZoneRecord(deps, caller, { ...(rest as z.infer<typeof createBody>), rdata });
        return { status: 201, body: envelope('zone_record', serializeZoneRecord(row), 'the zone record was created') };
      },
    }),
    defineRoute({
      method: 'put', path: '/zone_record/:id', auth: 'session', permission: ['zonerecord_write'],
      summary: 'Change or restore a record',
      description: 'Fields not given keep their values; changing the type needs the new type\'s fields. ' +
        'A `ttl` is the TTL of the record\'s RRset: the other records of the set take it too.',
      params: idParams, body: updateBody, bodyExample: { address: '192.0.2.11' },
      responses: { 200: { description: 'Updated', schema: zoneRecordResponseSchema, example: reply('the zone record was updated') }, 400: badRecord, ...common },
      async handler({ params, body }, { deps, caller }) {
        const { rest, rdata } = splitBody(body);
        const row = await changeZoneRecord(deps, caller, params.id, { ...rest, rdata });
        return { body: envelope('zone_record', serializeZoneRecord(row), 'the zone record was updated') };
      },
    }),
    defineRoute({
      method: 'delete', path: '/zone_record/:id', auth: 'session', permission: ['zonerecord_delete'],
      summary: 'Delete a record (soft delete; PUT {deleted:false} restores it)', params: idParams,
      responses: { 200: { description: 'Deleted; the body is the record as it now is', schema: zoneRecordResponseSchema, example: reply('I deleted that zone record') }, 400: badRecord, ...common },
      async handler({ params }, { deps, caller }) {
        const row = await deleteZoneRecord(deps, caller, params.id);
        return { body: envelope('zone_record', serializeZoneRecord(row), 'I deleted that zone record') };
      },
    }),
    historyRoute({ path: '/zone_record/:id/history', summary: 'Audit history of a record', what: 'Zone record', load: recordHistory }),
  ],
};
