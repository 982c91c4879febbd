import { z } from 'zod';
import { unpublishedReason } from '../publishing/queue';
import { publishStatus } from '../publishing/publisher';
import { envelope, envelopeSchema } from '../http/envelope';
import { defineRoute, type RouteFamily } from '../http/route';
import { deletedQuery, emptyQuery, idNumber, idParams } from '../http/schemas';
import { ensureTrailingDot, NAMESERVER_EXPORT_TYPES, normalizeName } from '../dns';
import { nameserverResponseSchema, nameserverSchema, serializeNameserver } from '../serialize-zones';
import { changeNameserver, createNameserver, deleteNameserver, getNameserver, listNameservers } from '../services/zones/nameservers';
import { boolQuery, deletedFlag, gidQuery, plainText, subgroupsFlag, ttl } from './dns-inputs';
import { nameserverHistory } from '../services/audit/history';
import { historyRoute } from './history';
import { errorExamples } from './examples';

const fields = {
  gid: idNumber.optional().meta({ description: 'owning group (default: yours)' }),
  name: z.string().min(2).max(255).meta({ description: 'host name; a trailing dot is added', example: 'ns1.example.com.' }),
  address: z.string().nullable().optional().meta({ description: 'IPv4 address (glue when the name lies in a zone)', example: '192.0.2.53' }),
  address6: z.string().nullable().optional().meta({ example: '2001:db8::53' }),
  ttl: ttl.optional(),
  description: plainText(255).optional(),
  export: z.object({ type: z.enum(NAMESERVER_EXPORT_TYPES) }).strict().optional(),
};

const createBody = z.object(fields).strict();
const updateBody = z
  .object({ ...fields, name: fields.name.optional(), deleted: z.literal(false).optional().meta({ description: 'false restores a deleted nameserver' }) })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'at least one field is required');

export const publishStatusSchema = z.object({
  nameserver_id: z.number(), queued: z.number(), last_success_at: z.string().nullable(), last_error: z.string().nullable(),
  last_error_at: z.string().nullable(), next_attempt_at: z.string().nullable(),
  not_published: z.string().nullable().meta({ description: 'Why this nameserver gets no publish jobs (e.g. no target in publish.yml), or null' }),
  failing_zones: z.array(z.object({
    zone_id: z.number(), zone: z.string().nullable(), attempts: z.number(), last_error: z.string().nullable(), next_attempt_at: z.string().nullable(),
  })).meta({ description: 'Zones whose publishing keeps failing, with the error (each holds back only its own later changes)' }),
});

const example = { id: 7, gid: 4096, name: 'ns1.example.com.', address: '192.0.2.53', address6: null, ttl: 3600, description: '', export: { type: 'bind' }, deleted: false };
const reply = (msg: string) => ({ nameserver: example, meta: { api: { version: '0.1.0' }, msg } });
const listSchema = z.object({ nameserver: z.array(nameserverSchema), meta: z.object({ api: z.object({ version: z.string() }), msg: z.string() }) });
const common = { 401: errorExamples.missingAuthentication, 403: errorExamples.forbidden, 404: errorExamples.notFound('Nameserver') };

export const nameserverRoutes: RouteFamily = {
  name: 'nameserver',
  description: 'Nameservers: the servers zones are published on; a zone\'s NS records derive from its assigned nameservers',
  routes: [
    defineRoute({
      method: 'get', path: '/nameserver', auth: 'session',
      summary: 'Nameservers of a group',
      description: 'With `usable=true`, also the nameservers of the groups above yours, which your zones may use; `name` narrows to one name (NicTool\'s filter).',
      query: z.object({
        gid: gidQuery, deleted: deletedFlag, include_subgroups: subgroupsFlag, usable: boolQuery('true: add the nameservers of the groups above yours'),
        name: plainText(255).min(1).optional().transform((v) => (v === undefined ? v : normalizeName(ensureTrailingDot(v))))
          .meta({ description: 'only the nameserver of this name (with or without the final dot, any case)' }),
      }).strict(),
      responses: { 200: { description: 'The nameservers', schema: listSchema, example: { nameserver: [example], meta: reply("here are your nameservers").meta } }, 400: errorExamples.badInput, ...common },
      async handler({ query }, { deps, caller }) {
        const rows = await listNameservers(deps, caller, query);
        return { body: envelope('nameserver', rows.map(serializeNameserver), 'here are your nameservers') };
      },
    }),
    defineRoute({
      method: 'get', path: '/nameserver/:id', auth: 'session',
      summary: 'A nameserver by id',
      description: 'Nameservers of your group, the groups below it, and the groups above it (which you may use but not change).',
      params: idParams, query: deletedQuery,
      responses: { 200: { description: 'The nameserver', schema: nameserverResponseSchema, example: reply("here's your nameserver") }, 400: errorExamples.badInput, ...common },
      async handler({ params, query }, { deps, caller }) {
        const row = await getNameserver(deps, caller, params.id, { deleted: query.deleted });
        return { body: envelope('nameserver', serializeNameserver(row), "here's your nameserver") };
      },
    }),
    defineRoute({
      method: 'get', path: '/nameserver/:id/status', auth: 'session',
      summary: 'Publishing status of a nameserver',
      description: 'How publishing to this nameserver goes (publish.yml): jobs still queued, the last success, the last error and when the next try is due.',
      params: idParams, query: emptyQuery,
      responses: {
        200: {
          description: 'The status', schema: envelopeSchema('status', publishStatusSchema),
          example: { status: { nameserver_id: 7, queued: 0, last_success_at: '2026-11-25T12:00:00.000Z', last_error: null, last_error_at: null, next_attempt_at: null, not_published: null, failing_zones: [] }, meta: { api: { version: '0.1.0' }, msg: 'publishing status' } },
        },
        ...common,
      },
      async handler({ params }, { deps, caller }) {
        const row = await getNameserver(deps, caller, params.id, { deleted: false });
        const status = await publishStatus(deps.db, row.id, unpublishedReason(deps.config.publish, row));
        return { body: envelope('status', status, 'publishing status') };
      },
    }),
    defineRoute({
      method: 'post', path: '/nameserver', auth: 'session', permission: ['nameserver_create'],
      summary: 'Create a nameserver',
      body: createBody, bodyExample: { name: 'ns1.example.com.', address: '192.0.2.53', export: { type: 'bind' } },
      responses: {
        201: { description: 'Created', schema: nameserverResponseSchema, example: reply('the nameserver was created') },
        400: errorExamples.badInput, ...common, 409: errorExamples.conflict('A nameserver with that name already exists'),
      },
      async handler({ body }, { deps, caller }) {
        const row = await createNameserver(deps, caller, body);
        return { status: 201, body: envelope('nameserver', serializeNameserver(row), 'the nameserver was created') };
      },
    }),
    defineRoute({
      method: 'put', path: '/nameserver/:id', auth: 'session', permission: ['nameserver_write'],
      summary: 'Change or restore a nameserver',
      description: 'The serial of every zone it serves advances (their NS records and glue derive from it).',
      params: idParams, body: updateBody, bodyExample: { address: '192.0.2.54' },
      responses: {
        200: { description: 'Updated', schema: nameserverResponseSchema, example: reply('the nameserver was updated') },
        400: errorExamples.badInput, ...common, 409: errorExamples.conflict('A nameserver with that name already exists'),
      },
      async handler({ params, body }, { deps, caller }) {
        const row = await changeNameserver(deps, caller, params.id, body);
        return { body: envelope('nameserver', serializeNameserver(row), 'the nameserver was updated') };
      },
    }),
    defineRoute({
      method: 'delete', path: '/nameserver/:id', auth: 'session', permission: ['nameserver_delete'],
      summary: 'Delete a nameserver (soft delete)',
      description: 'Refused with 409 while a live zone uses it. `PUT {deleted: false}` restores it.',
      params: idParams,
      responses: {
        200: { description: 'Deleted; the body is the nameserver as it now is', schema: nameserverResponseSchema, example: reply('I deleted that nameserver') },
        400: errorExamples.badInput, ...common, 409: errorExamples.conflict('Cannot delete nameserver: 1 active zone(s) still use it.'),
      },
      async handler({ params }, { deps, caller }) {
        const row = await deleteNameserver(deps, caller, params.id);
        return { body: envelope('nameserver', serializeNameserver(row), 'I deleted that nameserver') };
      },
    }),
    historyRoute({ path: '/nameserver/:id/history', summary: 'Audit history of a nameserver', what: 'Nameserver', load: nameserverHistory }),
  ],
};
