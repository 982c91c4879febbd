import { z } from 'zod';
import { envelope, envelopeSchema, meta, metaSchema } from '../http/envelope';
import { defineRoute, type RouteFamily } from '../http/route';
import { deletedQuery, idNumber, idParams } from '../http/schemas';
import { ensureTrailingDot, normalizeName } from '../dns';
import { listEnvelopeSchema, zoneResponseSchema, zoneSchema } from '../serialize-zones';
import { zoneHistory } from '../services/audit/history';
import { changeZone, createZone, deleteZone, getZone, listZones, ZONE_SORT_KEYS, zoneNsRecords } from '../services/zones/zones';
import { deletedFlag, gidQuery, paging, plainText, subgroupsFlag, ttl } from './dns-inputs';
import { errorExamples } from './examples';
import { zoneDnssec } from '../services/zones/dnssec';
import { historyRoute } from './history';
import { recordListRoute } from './zone-records';
import { zoneFileRoutes } from './zone-files';

const timer = (description: string, example: number) => z.number().int().optional().meta({ description, example });
const soaFields = {
  description: plainText(255).optional(),
  mailaddr: z.string().min(3).max(255).optional().meta({ description: 'SOA RNAME, as a mailbox or a name, at a host name (default hostmaster.<zone>, or at its nearest ancestor that is a host name)', example: 'hostmaster@example.com' }),
  refresh: timer('SOA refresh (default 86400, RFC 1912)', 86400),
  retry: timer('SOA retry (default 7200)', 7200),
  expire: timer('SOA expire (default 1209600)', 1209600),
  minimum: timer('SOA minimum / negative-caching TTL (default 3600)', 3600),
  ttl: ttl.optional().meta({ description: 'default TTL of the zone ($TTL; default 3600)' }),
  serial: z.number().int().min(0).max(4294967295).optional().meta({
    description: 'SOA serial (uint32). On create the default is today\'s YYYYMMDD00; a change with a larger serial takes it, ' +
      'one with the current serial (as read back) advances it as usual, a smaller one is refused: the serial never goes backwards',
    example: 2026112401,
  }),
  nameservers: z.array(idNumber).max(32).optional().meta({ description: 'ids of the nameservers serving the zone, in order; NS records derive from them' }),
  dnssec: z.boolean().optional().meta({ description: 'Signed by its nameservers (default: the group\'s dnssec_default). Read GET /zone/<id>/dnssec before turning it off' }),
  nsec3: z.boolean().optional().meta({ description: 'When signed, deny existence with NSEC3 (no salt, no extra iterations) rather than NSEC (default false)' }),
};

const createBody = z
  .object({ gid: idNumber.optional().meta({ description: 'owning group (default: yours)' }), zone: z.string().min(1).max(255).meta({ example: 'example.com.' }), ...soaFields })
  .strict();
const updateBody = z
  .object({ gid: idNumber.optional(), ...soaFields, deleted: z.literal(false).optional().meta({ description: 'false restores a deleted zone' }) })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'at least one field is required');

const zoneExample = {
  id: 12, gid: 4096, zone: 'example.com.', description: '', mailaddr: 'hostmaster.example.com.', serial: 2026112300,
  refresh: 86400, retry: 7200, expire: 1209600, minimum: 3600, ttl: 3600, nameservers: [7], dnssec: false, nsec3: false, last_modified: '2026-11-23T10:00:00.000Z', deleted: false,
};
const reply = (msg: string) => ({ zone: zoneExample, meta: { api: { version: '0.1.0' }, msg } });
const pagination = { total: 1, filtered: 1, limit: 100, offset: 0 };
const common = { 401: errorExamples.missingAuthentication, 403: errorExamples.forbidden, 404: errorExamples.notFound('Zone') };


const dnssecSchema = z.object({
  zone: z.string(),
  enabled: z.boolean(),
  nsec3: z.boolean(),
  state: z.enum(['signed', 'pending', 'unsigned', 'unsigning', 'inconsistent']),
  ds: z.array(z.object({ key_tag: z.number().int(), algorithm: z.number().int(), digest_type: z.number().int(), digest: z.string(), record: z.string() })),
  dnskeys: z.array(z.object({ key_tag: z.number().int(), flags: z.number().int(), algorithm: z.number().int(), dnskey: z.string() })),
  nameservers: z.array(z.object({ id: z.number().int(), name: z.string(), type: z.string(), key_tags: z.array(z.number().int()), error: z.string().nullable() })),
});
const dnssecExample = {
  zone: 'example.com.', enabled: true, nsec3: false, state: 'signed',
  ds: [{ key_tag: 2371, algorithm: 13, digest_type: 2, digest: '1F987CC6583E92DF0890718C42…', record: 'example.com. IN DS 2371 13 2 1F987CC6583E92DF0890718C42…' }],
  dnskeys: [{ key_tag: 2371, flags: 257, algorithm: 13, dnskey: '257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0d…' }],
  nameservers: [{ id: 7, name: 'ns1.example.net.', type: 'powerdns', key_tags: [2371], error: null }],
};

export const zoneRoutes: RouteFamily = {
  name: 'zone',
  description: 'Zones: SOA values, assigned nameservers, records, BIND export/import and history',
  routes: [
    defineRoute({
      method: 'get', path: '/zone', auth: 'session',
      summary: 'List zones',
      description: 'Zones of a group (default: yours), optionally with its subgroups; `search` matches the zone name and description, ' +
        '`zone` one zone by name, `zone_like` part of the name, `description_like` part of the description (NicTool\'s filters; any case).',
      query: z.object({
        gid: gidQuery, deleted: deletedFlag, include_subgroups: subgroupsFlag,
        search: plainText(255).optional(),
        zone: plainText(255).min(1).optional().transform((v) => (v === undefined ? v : normalizeName(ensureTrailingDot(v))))
          .meta({ description: 'exactly this zone (with or without the final dot, any case)' }),
        zone_like: plainText(255).optional().meta({ description: 'zones whose name contains this (any case)' }),
        description_like: plainText(255).optional().meta({ description: 'zones whose description contains this (any case)' }),
        sort_by: z.enum(ZONE_SORT_KEYS).optional().transform((v) => v ?? 'zone').meta({ description: 'id, zone (default), description, serial or last_modified' }),
        ...paging,
      }).strict(),
      responses: { 200: { description: 'A page of zones', schema: listEnvelopeSchema('zone', zoneSchema), example: { zone: [zoneExample], meta: { ...meta("here's your zone(s)"), pagination } } }, 400: errorExamples.badInput, ...common },
      async handler({ query }, { deps, caller }) {
        const { zones, total, filtered } = await listZones(deps, caller, {
          gid: query.gid, include_subgroups: query.include_subgroups, deleted: query.deleted, search: query.search,
          zone: query.zone, zoneLike: query.zone_like, descriptionLike: query.description_like,
          sortBy: query.sort_by, sortDir: query.sort_dir, limit: query.limit, offset: query.offset,
        });
        return { body: { zone: zones, meta: { ...meta("here's your zone(s)"), pagination: { total, filtered, limit: query.limit, offset: query.offset } } } };
      },
    }),
    defineRoute({
      method: 'get', path: '/zone/:id', auth: 'session',
      summary: 'A zone by id', params: idParams, query: deletedQuery,
      responses: { 200: { description: 'The zone', schema: zoneResponseSchema, example: reply("here's your zone") }, 400: errorExamples.badInput, ...common },
      async handler({ params, query }, { deps, caller }) {
        return { body: envelope('zone', await getZone(deps, caller, params.id, { deleted: query.deleted }), "here's your zone") };
      },
    }),
    defineRoute({
      method: 'post', path: '/zone', auth: 'session', permission: ['zone_create'],
      summary: 'Create a zone',
      description: 'The serial starts at today\'s YYYYMMDD00; SOA timers default to RFC 1912 values. A zone above or below a live zone of a ' +
        'group you may not manage is a 403 (which does not name that zone) unless an administrator who manages it allowed the name for the ' +
        'zone\'s group (POST /zone/<id>/delegation); the same holds for restores, moves to another group and zone file imports.',
      body: createBody, bodyExample: { zone: 'example.com.', mailaddr: 'hostmaster@example.com', nameservers: [7] },
      responses: {
        201: { description: 'Created', schema: zoneResponseSchema, example: reply('the zone was created') },
        400: errorExamples.badInput, ...common,
        403: {
          ...errorExamples.forbidden,
          description: 'Outside your group subtree, or above or below another group\'s zone without a delegation',
          example: {
            statusCode: 403, error: 'Forbidden',
            message: 'www.example.com.: a zone of another group holds names above this one; an administrator who manages that zone may allow it (POST /zone/<id>/delegation)',
          },
        },
        409: errorExamples.conflict('A zone with that name already exists'),
      },
      async handler({ body }, { deps, caller }) {
        return { status: 201, body: envelope('zone', await createZone(deps, caller, body), 'the zone was created') };
      },
    }),
    defineRoute({
      method: 'put', path: '/zone/:id', auth: 'session', permission: ['zone_write'],
      summary: 'Change or restore a zone (the serial advances)',
      params: idParams, body: updateBody, bodyExample: { refresh: 43200, nameservers: [7, 8] },
      responses: {
        200: { description: 'Updated', schema: zoneResponseSchema, example: reply('the zone was updated') },
        400: errorExamples.badInput, ...common, 409: errorExamples.conflict('A zone with that name already exists'),
      },
      async handler({ params, body }, { deps, caller }) {
        return { body: envelope('zone', await changeZone(deps, caller, params.id, body), 'the zone was updated') };
      },
    }),
    defineRoute({
      method: 'delete', path: '/zone/:id', auth: 'session', permission: ['zone_delete'],
      summary: 'Delete a zone (soft delete; PUT {deleted:false} restores it)', params: idParams,
      responses: { 200: { description: 'Deleted; the body is the zone as it now is', schema: zoneResponseSchema, example: reply('I deleted that zone') }, 400: errorExamples.badInput, ...common },
      async handler({ params }, { deps, caller }) {
        return { body: envelope('zone', await deleteZone(deps, caller, params.id), 'I deleted that zone') };
      },
    }),
    recordListRoute('/zone/:id/records'),
    defineRoute({
      method: 'get', path: '/zone/:id/ns', auth: 'session',
      summary: 'The NS records of a zone',
      description: 'Derived from the nameservers assigned to the zone, in their order, as the BIND export writes them.',
      params: idParams,
      responses: {
        200: {
          description: 'The NS records',
          schema: z.object({ ns: z.array(z.object({ owner: z.string(), ttl: z.number().int(), dname: z.string() })), meta: metaSchema }),
          example: { ns: [{ owner: 'example.com.', ttl: 3600, dname: 'ns1.example.net.' }], meta: meta('here are the NS records') },
        },
        400: errorExamples.badInput, ...common,
      },
      async handler({ params }, { deps, caller }) {
        return { body: { ns: await zoneNsRecords(deps, caller, params.id), meta: meta('here are the NS records') } };
      },
    }),
    defineRoute({
      method: 'get', path: '/zone/:id/dnssec', auth: 'session',
      summary: 'DNSSEC of a zone: its state, its keys on each nameserver, the DS records for the registrar',
      description: 'Read live from the nameservers (PowerDNS through its API, BIND from its key directory). Give the `ds` records ' +
        '(SHA-256, digest type 2; SHA-384 too) to the parent zone\'s registrar once `state` is `signed`. To turn DNSSEC off, ' +
        'first remove the DS at the registrar and wait out its TTL: a DS without signatures makes the zone fail validation.',
      params: idParams,
      responses: {
        200: {
          description: 'The zone\'s DNSSEC',
          schema: envelopeSchema('dnssec', dnssecSchema),
          example: { dnssec: dnssecExample, meta: meta('DNSSEC of the zone') },
        },
        400: errorExamples.badInput, ...common,
      },
      async handler({ params }, { deps, caller }) {
        return { body: envelope('dnssec', await zoneDnssec(deps, caller, params.id), 'DNSSEC of the zone') };
      },
    }),
    historyRoute({
      path: '/zone/:id/history', what: 'Zone', load: zoneHistory,
      summary: 'Audit history of a zone and its records',
      description: 'Every create, update, delete and restore of the zone and of its records: who, when, before and after, oldest first.',
    }),
    ...zoneFileRoutes,
  ],
};
