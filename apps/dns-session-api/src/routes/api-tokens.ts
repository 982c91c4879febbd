// API tokens for the PowerDNS-compatible API (issue 32): POST/GET /user/<id>/tokens, DELETE /user/<id>/tokens/<token_id>.
// The user or an administrator over them; the token itself is in the POST's answer only.
import { z } from 'zod';
import { envelope, envelopeSchema } from '../http/envelope';
import { defineRoute, type RouteFamily } from '../http/route';
import { idNumber, idParams, idString } from '../http/schemas';
import { apiTokensOf, createApiToken, revokeApiTokenOf, serializeApiToken } from '../services/access/api-tokens';
import { errorExamples } from './examples';

const tokenSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  user_id: z.number().int(),
  zones: z.array(z.number().int()).nullable().meta({ description: 'Zone ids the token may use; null: every zone its user may manage' }),
  names: z.array(z.string()).nullable().meta({ description: 'Record-name patterns (`*` spans any characters); null: any name' }),
  types: z.array(z.string()).nullable().meta({ description: 'Record types; null: any type' }),
  created_at: z.string(),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});

const example = {
  id: 7, name: 'lego on web-1', user_id: 4096, zones: [512], names: ['_acme-challenge.*'], types: ['TXT'],
  created_at: '2026-11-25T12:00:00.000Z', expires_at: '2027-11-25T00:00:00.000Z', last_used_at: null, revoked_at: null,
};
const common = { 401: errorExamples.missingAuthentication, 403: errorExamples.forbidden, 404: errorExamples.notFound('User') };
const meta = (msg: string) => ({ api: { version: '0.1.0' }, msg });

export const apiTokenRoutes: RouteFamily = {
  name: 'api token',
  description: 'Tokens for the PowerDNS-compatible API at /api/v1 (X-API-Key or Authorization: Bearer), each scoped to zones, names and types',
  routes: [
    defineRoute({
      method: 'post',
      path: '/user/:id/tokens',
      auth: 'session',
      summary: 'Create an API token (the token is in this answer only)',
      params: idParams,
      body: z.object({
        name: z.string().trim().min(1).max(100),
        expires_at: z.iso.datetime({ offset: true }).optional().meta({ description: 'When it stops working; absent: never' }),
        zones: z.array(idNumber).min(1).max(1000).optional().meta({ description: 'Only these zones; absent: every zone the user may manage' }),
        names: z.array(z.string().max(253)).min(1).max(50).optional().meta({ description: 'Only record names matching one of these (e.g. _acme-challenge.*)' }),
        types: z.array(z.string().max(10)).min(1).max(20).optional().meta({ description: 'Only these record types (e.g. TXT)' }),
      }).strict(),
      bodyExample: { name: 'lego on web-1', zones: [512], names: ['_acme-challenge.*'], types: ['TXT'], expires_at: '2027-11-25T00:00:00Z' },
      responses: {
        201: {
          description: 'Created; `token` is shown this once',
          schema: envelopeSchema('api_token', tokenSchema.extend({ token: z.string() })),
          example: { api_token: { ...example, token: 'kzdns_7xQ…' }, meta: meta('API token created') },
        },
        400: errorExamples.badInput,
        ...common,
      },
      async handler({ params, body }, { deps, caller }) {
        const { token, row } = await createApiToken(deps, caller, params.id, {
          name: body.name, expiresAt: body.expires_at ? new Date(body.expires_at) : undefined, zoneIds: body.zones, names: body.names, types: body.types,
        });
        return { status: 201, body: envelope('api_token', { ...serializeApiToken(row), token }, 'API token created') };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/user/:id/tokens',
      auth: 'session',
      summary: "A user's API tokens, revoked ones included (never the tokens themselves)",
      params: idParams,
      responses: { 200: { description: 'The tokens', schema: envelopeSchema('api_tokens', z.array(tokenSchema)), example: { api_tokens: [example], meta: meta('API tokens') } }, ...common },
      async handler({ params }, { deps, caller }) {
        return { body: envelope('api_tokens', (await apiTokensOf(deps, caller, params.id)).map(serializeApiToken), 'API tokens') };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/user/:id/tokens/:token_id',
      auth: 'session',
      summary: 'Revoke an API token (at once, on every instance)',
      params: z.object({ id: idString, token_id: idString }),
      responses: {
        200: { description: 'Revoked', schema: envelopeSchema('api_token', tokenSchema), example: { api_token: { ...example, revoked_at: '2026-11-26T08:00:00.000Z' }, meta: meta('API token revoked') } },
        ...common,
      },
      async handler({ params }, { deps, caller }) {
        return { body: envelope('api_token', serializeApiToken(await revokeApiTokenOf(deps, caller, params.id, params.token_id)), 'API token revoked') };
      },
    }),
  ],
};
