// The auth-server users linked to a DNS user (issue 20): POST/GET /user/<id>/identities, DELETE
// /user/<id>/identities/<sub>.
import { z } from 'zod';
import { envelope, envelopeSchema, metaOnlySchema, withMeta } from '../http/envelope';
import { defineRoute, type RouteFamily } from '../http/route';
import { idParams, idString } from '../http/schemas';
import { serializeUserIdentity } from '../serialize';
import { identitiesOf, linkIdentity, unlinkIdentity } from '../services/access/user-identities';
import { errorExamples } from './examples';

const sub = z.string().min(1).max(1024).refine((v) => ![...v].some((c) => c < ' ' || c === '\u007f'), 'expected a subject without control characters').meta({
  description: "The auth server's user id (the access token's `sub`); for an OpenID Connect provider other than auth.yml's auth server, `<issuer>#<sub>` (README \"Sign in to the DNS API with Keyzone\")",
  example: '5f0c7e0e-8d3a-4b53-9c51-2f0d6d1f6b3e',
});
const identitySchema = z.object({ sub: z.string(), user_id: z.number(), linked_by: z.enum(['admin', 'verified_email']), created_at: z.string() });

const example = { sub: '5f0c7e0e-8d3a-4b53-9c51-2f0d6d1f6b3e', user_id: 4096, linked_by: 'admin', created_at: '2026-11-25T12:00:00.000Z' };
const common = { 401: errorExamples.missingAuthentication, 403: errorExamples.forbidden, 404: errorExamples.notFound('User') };

export const userIdentityRoutes: RouteFamily = {
  name: 'identity',
  description: 'Auth-server users who act as a DNS user (auth.yml): linked by an administrator or by a verified email',
  routes: [
    defineRoute({
      method: 'post',
      path: '/user/:id/identities',
      auth: 'session',
      summary: 'Link an auth-server user to this user (administrators)',
      params: idParams,
      body: z.object({ sub }).strict(),
      bodyExample: { sub: example.sub },
      responses: {
        201: { description: 'Linked', schema: envelopeSchema('identity', identitySchema), example: { identity: example, meta: { api: { version: '0.1.0' }, msg: 'identity linked' } } },
        400: errorExamples.badInput,
        ...common,
        409: errorExamples.conflict('That auth-server user is already linked to a DNS user'),
      },
      async handler({ params, body }, { deps, caller }) {
        const row = await linkIdentity(deps, caller, params.id, body.sub);
        return { status: 201, body: envelope('identity', serializeUserIdentity(row), 'identity linked') };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/user/:id/identities',
      auth: 'session',
      summary: "A user's linked auth-server users (the user or an administrator)",
      params: idParams,
      responses: {
        200: { description: 'The links', schema: envelopeSchema('identities', z.array(identitySchema)), example: { identities: [example], meta: { api: { version: '0.1.0' }, msg: 'identities' } } },
        ...common,
      },
      async handler({ params }, { deps, caller }) {
        return { body: envelope('identities', (await identitiesOf(deps, caller, params.id)).map(serializeUserIdentity), 'identities') };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/user/:id/identities/:sub',
      auth: 'session',
      summary: 'Unlink an auth-server user (administrators)',
      params: z.object({ id: idString, sub }),
      responses: { 200: { description: 'Unlinked', schema: metaOnlySchema, example: { meta: { api: { version: '0.1.0' }, msg: 'identity unlinked' } } }, ...common },
      async handler({ params }, { deps, caller }) {
        await unlinkIdentity(deps, caller, params.id, params.sub);
        return { body: withMeta({}, 'identity unlinked') };
      },
    }),
  ],
};
