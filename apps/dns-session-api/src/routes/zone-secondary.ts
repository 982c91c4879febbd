// GET/PUT/DELETE /zone/<id>/secondary (issue 44): a zone kept as a secondary of an outside primary, its refresh state
// (current, retrying, expired), making an existing zone one (administrators: Keyzone connects to the address given),
// and converting it back to a primary zone of Keyzone's (whoever may write the zone).
import { z } from 'zod';
import { envelope, envelopeSchema } from '../http/envelope';
import { defineRoute, type RouteFamily } from '../http/route';
import { idNumber, idParams } from '../http/schemas';
import { getSecondary, markSecondary, unmarkSecondary } from '../services/zones/secondary/manage';
import { errorExamples } from './examples';

const secondarySchema = z.object({
  zone_id: z.number().int(),
  primary: z.object({ address: z.string(), port: z.number().int(), tsig_key_id: z.number().int().nullable() }),
  state: z.enum(['pending', 'current', 'retrying', 'expired']).meta({
    description: 'pending: not transferred yet; current: the last check reached the primary; retrying: the last check failed (see last_error); ' +
      'expired: the primary has not answered for its SOA expire, so the zone is not served (SERVFAIL, withdrawn from the nameservers) until it does',
  }),
  primary_serial: z.number().int().nullable().meta({ description: 'The primary\'s serial last transferred' }),
  refresh: z.number().int().nullable(),
  retry: z.number().int().nullable(),
  expire: z.number().int().nullable(),
  next_check_at: z.string(),
  last_check_at: z.string().nullable(),
  last_success_at: z.string().nullable(),
  last_transfer_at: z.string().nullable(),
  last_error: z.string().nullable(),
  expired_at: z.string().nullable(),
});

const example = {
  zone_id: 12, primary: { address: '192.0.2.53', port: 53, tsig_key_id: 3 }, state: 'current' as const, primary_serial: 2026112601,
  refresh: 7200, retry: 3600, expire: 1209600, next_check_at: '2026-11-26T12:00:00.000Z', last_check_at: '2026-11-26T10:00:00.000Z',
  last_success_at: '2026-11-26T10:00:00.000Z', last_transfer_at: '2026-11-26T08:00:00.000Z', last_error: null, expired_at: null,
};
const response = envelopeSchema('secondary', secondarySchema);
const common = { 401: errorExamples.missingAuthentication, 403: errorExamples.forbidden, 404: errorExamples.notFound('Zone') };

export const zoneSecondaryRoutes: RouteFamily = {
  name: 'secondary zones',
  description: 'Zones kept as secondaries of an outside primary: refreshed from its SOA, NOTIFY accepted from it, records read-only',
  routes: [
    defineRoute({
      method: 'get', path: '/zone/:id/secondary', auth: 'session', params: idParams,
      summary: 'A secondary zone\'s primary and refresh state',
      responses: { 200: { description: 'The zone is a secondary', schema: response, example: { secondary: example, meta: { api: { version: '0.1.0' }, msg: 'here is the secondary zone' } } }, ...common },
      async handler({ params }, { deps, caller }) {
        return { body: envelope('secondary', await getSecondary(deps, caller, params.id), 'here is the secondary zone') };
      },
    }),
    defineRoute({
      method: 'put', path: '/zone/:id/secondary', auth: 'session', permission: ['zone_write'], params: idParams,
      summary: 'Make a zone a secondary of an outside primary (administrators)',
      description: 'The zone\'s records and SOA are replaced by the primary\'s at the first check, due at once; from then on they are ' +
        'read-only in Keyzone (409 reason secondary_zone). NOTIFY from the primary\'s address, or signed with tsig_key_id, triggers a check.',
      body: z.object({
        address: z.string().trim().min(2).max(45).meta({ description: 'The primary\'s IP address' }),
        port: z.number().int().min(1).max(65535).optional(),
        tsig_key_id: idNumber.nullable().optional().meta({ description: 'A stored TSIG key (POST /user/<id>/tsig-keys) the primary allows transfers with' }),
      }).strict(),
      bodyExample: { address: '192.0.2.53', port: 53, tsig_key_id: 3 },
      responses: {
        200: { description: 'Kept as a secondary', schema: response, example: { secondary: { ...example, state: 'pending' as const }, meta: { api: { version: '0.1.0' }, msg: 'the zone is a secondary' } } },
        400: errorExamples.badInput, ...common,
      },
      async handler({ params, body }, { deps, caller }) {
        return { body: envelope('secondary', await markSecondary(deps, caller, params.id, body), 'the zone is a secondary') };
      },
    }),
    defineRoute({
      method: 'delete', path: '/zone/:id/secondary', auth: 'session', permission: ['zone_write'], params: idParams,
      summary: 'Make a secondary zone a primary zone of Keyzone\'s',
      description: 'Its records stay as last transferred and become writable; an expired zone is served again.',
      responses: { 200: { description: 'No longer a secondary (the state it had)', schema: response, example: { secondary: example, meta: { api: { version: '0.1.0' }, msg: 'the zone is a primary zone' } } }, ...common },
      async handler({ params }, { deps, caller }) {
        return { body: envelope('secondary', await unmarkSecondary(deps, caller, params.id), 'the zone is a primary zone') };
      },
    }),
  ],
};
