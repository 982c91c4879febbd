import { z } from 'zod';
import { envelope, envelopeSchema } from '../http/envelope';
import { defineRoute, type RouteFamily } from '../http/route';
import { deletedQuery, idNumber, idParams } from '../http/schemas';
import { permissionSchema, serializePermission } from '../serialize';
import { createPermission, deletePermission, getPermission, listPermissions, updatePermission } from '../services/directory/permission-objects';
import { deletedFlag, gidQuery, subgroupsFlag } from './dns-inputs';
import { errorExamples } from './examples';

// NicTool's permission objects (GET/POST/PUT/DELETE /permission[/<id>]), in NicTool's v3 shape.

const flag = z.boolean().optional();
const crud = { create: flag, write: flag, delete: flag };

const createBody = z
  .object({
    id: z.number().int().min(0).optional().meta({ description: 'ignored: Keyzone gives the id (NicTool\'s clients send one)' }),
    name: z.string().max(50).refine((v) => !v.includes('\u0000'), 'may not contain NUL characters').nullable().optional(),
    inherit: z.boolean().nullable().optional()
      .meta({ description: 'a user\'s object: true keeps the group\'s object applying to the user (default false: this one applies)' }),
    self_write: flag,
    deleted: z.literal(false).optional(),
    group: z.object({ id: idNumber.optional().meta({ description: 'the group (a group\'s object), or the user\'s group' }), ...crud }).strict().optional(),
    user: z.object({ id: idNumber.optional().meta({ description: 'the user (a user\'s object)' }), ...crud }).strict().optional(),
    nameserver: z.object({
      usable: z.array(idNumber).max(1000).optional()
        .meta({ description: 'a group\'s object: its usable_ns (nameservers of the groups above it its zones may use)' }),
      ...crud,
    }).strict().optional(),
    zone: z.object({ ...crud, delegate: flag }).strict().optional(),
    zonerecord: z.object({ ...crud, delegate: flag }).strict().optional(),
  })
  .strict();

const example = {
  id: 4095, name: 'Test Permission', inherit: true, self_write: false, deleted: false,
  group: { id: 4095, create: false, write: false, delete: false },
  user: { create: false, write: false, delete: false },
  nameserver: { usable: null, create: false, write: false, delete: false },
  zone: { create: true, write: true, delete: true, delegate: true },
  zonerecord: { create: true, write: true, delete: true, delegate: false },
};
const reply = (msg: string) => ({ permission: example, meta: { api: { version: '0.1.0' }, msg } });
const responseSchema = envelopeSchema('permission', permissionSchema);
const common = { 401: errorExamples.missingAuthentication, 403: errorExamples.forbidden, 404: errorExamples.notFound('Permission') };

export const permissionRoutes: RouteFamily = {
  name: 'permission',
  description: 'NicTool\'s permission objects: a group\'s, or a user\'s own. They only take rights away within Keyzone\'s rules ' +
    '(the group tree; administrators manage users and groups): the create/write/delete flags of zones, zone records, nameservers, ' +
    'users and groups, and self_write, are checked on every such change; a group\'s nameserver.usable is its usable_ns; ' +
    'the delegate flags and a user\'s nameserver.usable are kept, not enforced.',
  routes: [
    defineRoute({
      method: 'get', path: '/permission', auth: 'session',
      summary: 'Permission objects of a group and its users',
      query: z.object({ gid: gidQuery, include_subgroups: subgroupsFlag, deleted: deletedFlag }).strict(),
      responses: {
        200: { description: 'The objects', schema: envelopeSchema('permission', z.array(permissionSchema)), example: { ...reply('here are the permissions'), permission: [example] } },
        400: errorExamples.badInput, ...common,
      },
      async handler({ query }, { deps, caller }) {
        const rows = await listPermissions(deps, caller, query);
        return { body: envelope('permission', rows.map(serializePermission), 'here are the permissions') };
      },
    }),
    defineRoute({
      method: 'get', path: '/permission/:id', auth: 'session',
      summary: 'A permission object by id', params: idParams, query: deletedQuery,
      responses: { 200: { description: 'The object', schema: responseSchema, example: reply("here's your permission") }, 400: errorExamples.badInput, ...common },
      async handler({ params, query }, { deps, caller }) {
        return { body: envelope('permission', serializePermission(await getPermission(deps, caller, params.id, query)), "here's your permission") };
      },
    }),
    defineRoute({
      method: 'post', path: '/permission', auth: 'session',
      summary: 'Create a permission object (administrators)',
      description: 'With `user.id`: that user\'s object, which applies to them unless `inherit` is true. Else with `group.id`: the ' +
        'group\'s. Flags left out are false. Written only by an administrator above the group (a group\'s object) or of the user\'s ' +
        'group or above (a user\'s, not one\'s own), and never granting a flag the writer\'s own object lacks.',
      body: createBody,
      bodyExample: { name: 'zone editors', group: { id: 4096 }, zone: { create: true, write: true, delete: false }, zonerecord: { create: true, write: true, delete: true } },
      responses: {
        201: { description: 'Created', schema: responseSchema, example: reply('the permission was created') },
        400: errorExamples.badInput, ...common,
        409: errorExamples.conflict('That group already has permissions: delete them first'),
      },
      async handler({ body }, { deps, caller }) {
        const row = await createPermission(deps, caller, body);
        return { status: 201, body: envelope('permission', serializePermission(row), 'the permission was created') };
      },
    }),
    defineRoute({
      method: 'put', path: '/permission/:id', auth: 'session',
      summary: 'Change a permission object (administrators)',
      description: 'Name, flags, `inherit` (a user\'s object) and `nameserver.usable` change; what is left out stays; its group or ' +
        'user cannot change. The same rules as for a new object.',
      params: idParams,
      body: createBody.omit({ deleted: true }).refine((v) => Object.keys(v).length > 0, 'at least one field is required'),
      bodyExample: { zone: { delete: true } },
      responses: { 200: { description: 'Changed', schema: responseSchema, example: reply('permission updated') }, 400: errorExamples.badInput, ...common },
      async handler({ params, body }, { deps, caller }) {
        const row = await updatePermission(deps, caller, params.id, body);
        return { body: envelope('permission', serializePermission(row), 'permission updated') };
      },
    }),
    defineRoute({
      method: 'delete', path: '/permission/:id', auth: 'session',
      summary: 'Delete a permission object (administrators; soft delete)',
      description: 'The group or user then has Keyzone\'s rules alone (a group keeps its usable_ns, which PUT /group changes).',
      params: idParams,
      responses: { 200: { description: 'Deleted', schema: responseSchema, example: reply('I deleted that permission') }, 400: errorExamples.badInput, ...common },
      async handler({ params }, { deps, caller }) {
        const row = await deletePermission(deps, caller, params.id);
        return { body: envelope('permission', serializePermission(row), 'I deleted that permission') };
      },
    }),
  ],
};
