import { z } from 'zod';
import { envelope, envelopeSchema, meta } from '../http/envelope';
import { defineRoute, type RouteFamily } from '../http/route';
import { emptyQuery, idParams } from '../http/schemas';
import { publishNameserverNow, publishZoneNow } from '../services/zones/publish-now';
import { errorExamples } from './examples';
import { publishStatusSchema } from './nameservers';

// "Publish now" (issue 42): what `publish --all [--nameserver <id>]` does, for one nameserver or one zone, from the
// console. The answer is 202: the jobs are queued and the publisher starts on them as the answer is sent.

const publishZoneSchema = z.object({
  zone_id: z.number().int(),
  queued: z.number().int().meta({ description: 'Whole-zone publish jobs added (a nameserver already about to publish the whole zone gets none)' }),
  nameservers: z.array(z.object({
    id: z.number().int(), name: z.string(),
    not_published: z.string().nullable().meta({ description: 'Why this nameserver gets nothing (publish.yml), or null: it is publishing the zone' }),
  })),
});

const statusExample = {
  nameserver_id: 7, queued: 12, last_success_at: '2026-11-25T12:00:00.000Z', last_error: null, last_error_at: null,
  next_attempt_at: '2026-11-26T09:30:00.000Z', not_published: null, failing_zones: [],
};

export const publishNowRoutes: RouteFamily = {
  name: 'publishing',
  description: 'Publish now: send zones to their nameservers again at once (the whole zone, compared with what the nameserver has)',
  routes: [
    defineRoute({
      method: 'post', path: '/nameserver/:id/publish', auth: 'session', permission: ['nameserver_write'],
      summary: 'Publish every zone of a nameserver now',
      description: 'Queues each live zone the nameserver serves as a whole-zone publish: the nameserver\'s copy is compared with the zone ' +
        'and what differs is sent (a zone missing there is created). Jobs waiting out a retry backoff are due at once. For those who may ' +
        'change the nameserver (PUT /nameserver/<id>). The answer is its publishing status (as GET /nameserver/<id>/status) right after ' +
        'queueing; the publisher is already on it. 409 when nothing is published to this nameserver (publish.yml).',
      params: idParams, query: emptyQuery,
      responses: {
        202: {
          description: 'Queued; the nameserver\'s publishing status', schema: envelopeSchema('status', publishStatusSchema),
          example: { status: statusExample, meta: meta('publishing 12 zone(s) to this nameserver now') },
        },
        400: errorExamples.badInput, 401: errorExamples.missingAuthentication, 403: errorExamples.forbidden,
        404: errorExamples.notFound('Nameserver'), 409: errorExamples.conflict('Nothing is published to ns1.example.com.: publish.yml has no powerdns target for ns1.example.com.'),
      },
      async handler({ params }, { deps, caller }) {
        const { status, queued } = await publishNameserverNow(deps, caller, params.id);
        return { status: 202, body: envelope('status', status, `publishing ${queued} zone(s) to this nameserver now`) };
      },
    }),
    defineRoute({
      method: 'post', path: '/zone/:id/publish', auth: 'session', permission: ['zone_write'],
      summary: 'Publish a zone to all its nameservers now',
      description: 'Queues the whole zone for each of its nameservers that is published (the nameserver\'s copy is compared with the zone ' +
        'and what differs is sent); its jobs waiting out a retry backoff are due at once. For those who may change the zone. ' +
        'Follow it at GET /nameserver/<id>/status. 409 when the zone has no nameserver that is published.',
      params: idParams, query: emptyQuery,
      responses: {
        202: {
          description: 'Queued; which nameservers publish it', schema: envelopeSchema('publish', publishZoneSchema),
          example: { publish: { zone_id: 12, queued: 1, nameservers: [{ id: 7, name: 'ns1.example.net.', not_published: null }] }, meta: meta('publishing the zone now') },
        },
        400: errorExamples.badInput, 401: errorExamples.missingAuthentication, 403: errorExamples.forbidden,
        404: errorExamples.notFound('Zone'), 409: errorExamples.conflict('The zone has no nameservers: assign one to publish it'),
      },
      async handler({ params }, { deps, caller }) {
        return { status: 202, body: envelope('publish', await publishZoneNow(deps, caller, params.id), 'publishing the zone now') };
      },
    }),
  ],
};
