import { z } from 'zod';
import { envelope, envelopeSchema } from '../http/envelope';
import { defineRoute, type RouteFamily } from '../http/route';
import { ApiError } from '../errors';
import { checkDatabase } from '../services/health';
import { errorSchema } from './examples';

// GET /health for load balancers and the container HEALTHCHECK: 200 when the database answers, else 503.

const healthSchema = envelopeSchema('health', z.object({ status: z.literal('ok'), database: z.literal('ok') }));

export const healthRoutes: RouteFamily = {
  name: 'health',
  description: 'Liveness and readiness',
  routes: [
    defineRoute({
      method: 'get',
      path: '/health',
      auth: 'none',
      summary: 'Service health',
      responses: {
        200: {
          description: 'Up, and the database answers',
          schema: healthSchema,
          example: { health: { status: 'ok', database: 'ok' }, meta: { api: { version: '0.1.0' }, msg: 'healthy' } },
        },
        503: {
          description: 'The database does not answer',
          schema: errorSchema,
          example: { statusCode: 503, error: 'Service Unavailable', message: 'database unavailable' },
        },
      },
      async handler(_input, { deps }) {
        try {
          await checkDatabase(deps);
        } catch (err) {
          deps.log.warn({ err }, 'health check: database unavailable');
          throw new ApiError('unavailable', 'database unavailable', undefined, { cause: err });
        }
        return { body: envelope('health', { status: 'ok' as const, database: 'ok' as const }, 'healthy') };
      },
    }),
  ],
};
