import { z } from 'zod';
import { meta, metaSchema } from '../http/envelope';
import { defineRoute, type RouteFamily } from '../http/route';
import { currentLogin } from '../services/access/sessions';
import { errorExamples } from './examples';

// GET /: what a script calls first to see that its cookie works and whom it is talking as (NicTool's root route).

const statusSchema = z.object({
  status: z.literal('ok'),
  user: z.object({ id: z.number().int(), username: z.string() }),
  group: z.object({ id: z.number().int(), name: z.string() }),
  meta: metaSchema,
});

export const statusRoutes: RouteFamily = {
  name: 'status',
  description: 'Whom you are signed in as',
  routes: [
    defineRoute({
      method: 'get',
      path: '/',
      auth: 'session',
      summary: 'The API status for the signed-in user',
      responses: {
        200: {
          description: 'Signed in',
          schema: statusSchema,
          example: { status: 'ok', user: { id: 4096, username: 'unit-test' }, group: { id: 4096, name: 'example.com' }, meta: meta('you are signed in') },
        },
        401: errorExamples.missingAuthentication,
      },
      async handler(_input, { deps, caller }) {
        const { user, group } = await currentLogin(deps, caller);
        return { body: { status: 'ok' as const, user: { id: user.id, username: user.username }, group: { id: group.id, name: group.name }, meta: meta('you are signed in') } };
      },
    }),
  ],
};
