// POST /zone/import-axfr (issue 44): a zone pulled from a running nameserver by AXFR, imported like a zone file.
import { z } from 'zod';
import { meta } from '../http/envelope';
import { defineRoute, type RouteFamily } from '../http/route';
import { idNumber } from '../http/schemas';
import { zoneSchema } from '../serialize-zones';
import { importZoneByAxfr } from '../services/zones/import-axfr';
import { TSIG_ALGORITHMS } from '../services/access/tsig-keys';
import { errorExamples } from './examples';

const response = z.object({
  zone: zoneSchema, records: z.number().int(), skipped: z.number().int().meta({ description: 'DNSSEC records left out (RRSIG, NSEC, NSEC3, NSEC3PARAM)' }),
  meta: z.object({ api: z.object({ version: z.string() }), msg: z.string() }),
});

export const zoneAxfrImportRoutes: RouteFamily = {
  name: 'zone transfer import',
  description: 'Zones pulled from a running nameserver by AXFR (administrators)',
  routes: [
    defineRoute({
      method: 'post', path: '/zone/import-axfr', auth: 'session', permission: ['zone_create', 'zonerecord_create'],
      summary: 'Create a zone by transferring it (AXFR) from a running nameserver',
      description: 'Administrators only (it opens a connection to the address given). The transfer is verified with the TSIG key when one is ' +
        'given (`key`, or a stored key: `tsig_key_id`), then imported as POST /zone/import imports a zone file: the same checks, all or nothing. ' +
        'With `keep_secondary` the zone stays a secondary of that primary: checked every SOA refresh (retry after a failure), transferred again ' +
        'when its serial is newer, NOTIFY accepted from it, its records read-only in Keyzone, no longer served after the SOA expire without an ' +
        'answer (GET/PUT/DELETE /zone/<id>/secondary).',
      body: z.object({
        zone: z.string().trim().min(1).max(255),
        server: z.string().trim().min(2).max(45).meta({ description: 'The nameserver\'s IP address' }),
        port: z.number().int().min(1).max(65535).optional(),
        key: z.object({ name: z.string().trim().min(1).max(253), algorithm: z.enum(TSIG_ALGORITHMS), secret: z.string().min(1).max(200) }).strict().optional(),
        gid: idNumber.optional(),
        description: z.string().max(255).optional(),
        tsig_key_id: idNumber.optional().meta({ description: 'A stored TSIG key (POST /user/<id>/tsig-keys) instead of `key`; needed for a signed kept secondary' }),
        keep_secondary: z.boolean().optional().meta({ description: 'Keep the zone as a secondary of this primary (refresh, retry and expire from its SOA)' }),
      }).strict(),
      bodyExample: { zone: 'example.com.', server: '192.0.2.53', port: 53, key: { name: 'transfer.example', algorithm: 'hmac-sha256', secret: 'base64…' } },
      responses: {
        201: {
          description: 'Imported', schema: response,
          example: {
            zone: { id: 12, gid: 4096, zone: 'example.com.', description: '', mailaddr: 'hostmaster.example.com.', serial: 2026112300, refresh: 86400, retry: 7200, expire: 1209600, minimum: 3600, ttl: 3600, nameservers: [7], last_modified: '2026-11-23T10:00:00.000Z', deleted: false },
            records: 1, skipped: 0, meta: { api: { version: '0.1.0' }, msg: 'the zone was transferred and imported with 1 records' },
          },
        },
        400: errorExamples.badInput, 401: errorExamples.missingAuthentication, 403: errorExamples.forbidden,
        409: errorExamples.conflict('A zone with that name already exists'),
      },
      async handler({ body }, { deps, caller }) {
        const { zone, records, skipped } = await importZoneByAxfr(deps, caller, body);
        return { status: 201, body: { zone, records, skipped, meta: meta(`the zone was transferred and imported with ${records} records`) } };
      },
    }),
  ],
};
