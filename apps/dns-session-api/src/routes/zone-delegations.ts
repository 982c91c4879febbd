// Delegations across groups (issue 38.1): POST/GET /zone/<id>/delegation, DELETE /zone/<id>/delegation/<delegation_id>.
// An administrator who manages the zone allows a zone of another group above or below it.
import { z } from 'zod';
import { envelope, envelopeSchema } from '../http/envelope';
import { defineRoute, type RouteFamily } from '../http/route';
import { deletedQuery, idNumber, idParams, idString } from '../http/schemas';
import { createZoneDelegation, listZoneDelegations, withdrawZoneDelegationOf } from '../services/zones/zone-delegations';
import { errorExamples } from './examples';

const delegationSchema = z.object({
  id: z.number().int(),
  zid: z.number().int().meta({ description: 'The zone whose namespace is shared' }),
  zone: z.string().meta({ description: 'The zone allowed above or below it (absolute, lowercase)' }),
  gid: z.number().int().meta({ description: 'The group that may hold that zone' }),
  allowed_by: z.number().int().meta({ description: 'The administrator who allowed it (user id)' }),
  allowed_at: z.string(),
  deleted: z.boolean().meta({ description: 'Withdrawn' }),
  deleted_by: z.number().int().nullable(),
  deleted_at: z.string().nullable(),
});

const example = {
  id: 3, zid: 12, zone: 'www.example.com.', gid: 4100, allowed_by: 1, allowed_at: '2026-11-26T12:00:00.000Z', deleted: false, deleted_by: null, deleted_at: null,
};
const meta = (msg: string) => ({ api: { version: '0.1.0' }, msg });
const common = { 401: errorExamples.missingAuthentication, 403: errorExamples.forbidden, 404: errorExamples.notFound('Zone') };

export const zoneDelegationRoutes: RouteFamily = {
  name: 'zone delegation',
  description: 'A zone of another group above or below a zone: refused (403) unless an administrator who manages the zone allows it here',
  routes: [
    defineRoute({
      method: 'post', path: '/zone/:id/delegation', auth: 'session', permission: ['zone_delegate'],
      summary: 'Allow a zone of another group at a name above or below this zone (administrators)',
      params: idParams,
      body: z.object({
        zone: z.string().min(1).max(255).meta({ description: 'The name above or below this zone', example: 'www.example.com.' }),
        gid: idNumber.meta({ description: 'The group that may create it' }),
      }).strict(),
      bodyExample: { zone: 'www.example.com.', gid: 4100 },
      responses: {
        201: { description: 'Allowed', schema: envelopeSchema('delegation', delegationSchema), example: { delegation: example, meta: meta('the delegation was allowed') } },
        400: errorExamples.badInput, ...common, 409: errorExamples.conflict('That zone is already allowed for that group'),
      },
      async handler({ params, body }, { deps, caller }) {
        return { status: 201, body: envelope('delegation', await createZoneDelegation(deps, caller, params.id, body), 'the delegation was allowed') };
      },
    }),
    defineRoute({
      method: 'get', path: '/zone/:id/delegation', auth: 'session',
      summary: "A zone's delegations (deleted=true: the withdrawn ones), with who allowed each and when",
      params: idParams, query: deletedQuery,
      responses: {
        200: { description: 'The delegations', schema: envelopeSchema('delegation', z.array(delegationSchema)), example: { delegation: [example], meta: meta("here's your delegation(s)") } },
        400: errorExamples.badInput, ...common,
      },
      async handler({ params, query }, { deps, caller }) {
        return { body: envelope('delegation', await listZoneDelegations(deps, caller, params.id, query), "here's your delegation(s)") };
      },
    }),
    defineRoute({
      method: 'delete', path: '/zone/:id/delegation/:delegation_id', auth: 'session', permission: ['zone_delegate'],
      summary: 'Withdraw a delegation (administrators; a zone created under it stays)',
      params: z.object({ id: idString, delegation_id: idString }),
      responses: {
        200: {
          description: 'Withdrawn', schema: envelopeSchema('delegation', delegationSchema),
          example: { delegation: { ...example, deleted: true, deleted_by: 1, deleted_at: '2026-11-27T08:00:00.000Z' }, meta: meta('the delegation was withdrawn') },
        },
        ...common,
      },
      async handler({ params }, { deps, caller }) {
        return { body: envelope('delegation', await withdrawZoneDelegationOf(deps, caller, params.id, params.delegation_id), 'the delegation was withdrawn') };
      },
    }),
  ],
};
