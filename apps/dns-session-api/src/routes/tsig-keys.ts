// TSIG keys for the DNS listener (issue 44): POST/GET /user/<id>/tsig-keys, DELETE /user/<id>/tsig-keys/<key_id>.
// The user or an administrator over them; the secret is in the POST's answer only.
import { z } from 'zod';
import { envelope, envelopeSchema } from '../http/envelope';
import { defineRoute, type RouteFamily } from '../http/route';
import { idNumber, idParams, idString } from '../http/schemas';
import { TSIG_ALGORITHMS, createTsigKey, revokeTsigKeyOf, serializeTsigKey, tsigKeysOf } from '../services/access/tsig-keys';
import { errorExamples } from './examples';

const keySchema = z.object({
  id: z.number().int(),
  name: z.string().meta({ description: 'The key name messages carry (dig -y / nsupdate -y <algorithm>:<name>:<secret>)' }),
  algorithm: z.enum(TSIG_ALGORITHMS),
  user_id: z.number().int(),
  zones: z.array(z.number().int()).nullable().meta({ description: 'Zone ids the key may use; null: every zone its user may manage' }),
  names: z.array(z.string()).nullable().meta({ description: 'Record-name patterns an UPDATE may change (`*` spans any characters); null: any name' }),
  types: z.array(z.string()).nullable().meta({ description: 'Record types an UPDATE may change; null: any type' }),
  allow_transfer: z.boolean().meta({ description: 'May transfer (AXFR/IXFR) the zones in its scope' }),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});

const example = {
  id: 3, name: 'lego.web-1', algorithm: 'hmac-sha256' as const, user_id: 4096, zones: [512], names: ['_acme-challenge.*'], types: ['TXT'],
  allow_transfer: false, created_at: '2026-11-25T12:00:00.000Z', last_used_at: null, revoked_at: null,
};
const common = { 401: errorExamples.missingAuthentication, 403: errorExamples.forbidden, 404: errorExamples.notFound('User') };
const meta = (msg: string) => ({ api: { version: '0.1.0' }, msg });

export const tsigKeyRoutes: RouteFamily = {
  name: 'tsig key',
  description: 'TSIG keys (RFC 8945) for the DNS listener: zone transfers and RFC 2136 updates, each key scoped to zones, names and types',
  routes: [
    defineRoute({
      method: 'post',
      path: '/user/:id/tsig-keys',
      auth: 'session',
      summary: 'Create a TSIG key (the secret is in this answer only)',
      params: idParams,
      body: z.object({
        name: z.string().trim().min(1).max(253).meta({ description: 'A DNS name, unique among the keys in force' }),
        algorithm: z.enum(TSIG_ALGORITHMS).default('hmac-sha256'),
        zones: z.array(idNumber).min(1).max(1000).optional().meta({ description: 'Only these zones; absent: every zone the user may manage' }),
        names: z.array(z.string().max(253)).min(1).max(50).optional().meta({ description: 'Only record names matching one of these (e.g. _acme-challenge.*)' }),
        types: z.array(z.string().max(10)).min(1).max(20).optional().meta({ description: 'Only these record types (e.g. TXT)' }),
        allow_transfer: z.boolean().optional().meta({ description: 'May transfer whole zones (AXFR/IXFR); default false' }),
      }).strict(),
      bodyExample: { name: 'lego.web-1', algorithm: 'hmac-sha256', zones: [512], names: ['_acme-challenge.*'], types: ['TXT'] },
      responses: {
        201: {
          description: 'Created; `secret` (base64) is shown this once',
          schema: envelopeSchema('tsig_key', keySchema.extend({ secret: z.string() })),
          example: { tsig_key: { ...example, secret: 'q0lK…=' }, meta: meta('TSIG key created') },
        },
        400: errorExamples.badInput,
        409: errorExamples.conflict('A TSIG key named lego.web-1 is already in force'),
        ...common,
      },
      async handler({ params, body }, { deps, caller }) {
        const { secret, row } = await createTsigKey(deps, caller, params.id, {
          name: body.name, algorithm: body.algorithm, zoneIds: body.zones, names: body.names, types: body.types, allowTransfer: body.allow_transfer,
        });
        return { status: 201, body: envelope('tsig_key', { ...serializeTsigKey(row), secret }, 'TSIG key created') };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/user/:id/tsig-keys',
      auth: 'session',
      summary: "A user's TSIG keys, revoked ones included (never the secrets)",
      params: idParams,
      responses: { 200: { description: 'The keys', schema: envelopeSchema('tsig_keys', z.array(keySchema)), example: { tsig_keys: [example], meta: meta('TSIG keys') } }, ...common },
      async handler({ params }, { deps, caller }) {
        return { body: envelope('tsig_keys', (await tsigKeysOf(deps, caller, params.id)).map(serializeTsigKey), 'TSIG keys') };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/user/:id/tsig-keys/:key_id',
      auth: 'session',
      summary: 'Revoke a TSIG key (at once)',
      params: z.object({ id: idString, key_id: idString }),
      responses: {
        200: { description: 'Revoked', schema: envelopeSchema('tsig_key', keySchema), example: { tsig_key: { ...example, revoked_at: '2026-11-26T08:00:00.000Z' }, meta: meta('TSIG key revoked') } },
        ...common,
      },
      async handler({ params }, { deps, caller }) {
        return { body: envelope('tsig_key', serializeTsigKey(await revokeTsigKeyOf(deps, caller, params.id, params.key_id)), 'TSIG key revoked') };
      },
    }),
  ],
};
