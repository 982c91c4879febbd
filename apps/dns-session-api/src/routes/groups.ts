import { z } from 'zod';
import { envelope } from '../http/envelope';
import { defineRoute, type RouteFamily } from '../http/route';
import { deletedQuery, emptyQuery, idNumber, idParams, idString } from '../http/schemas';
import { envelopeSchema } from '../http/envelope';
import { groupAccessSchema, groupResponseSchema, groupSchema, serializeGroup, serializeGroupAccess, serializeUser, userSchema } from '../serialize';
import { getGroupAccess } from '../services/directory/group-access';
import { createGroup, createTopLevelGroup, deleteGroup, getGroup, listGroupChildren, listGroupUsers, listGroups, updateGroupById } from '../services/directory/groups';
import { deletedFlag, plainText, subgroupsFlag } from './dns-inputs';
import { errorExamples } from './examples';
import { email, groupName, password, personName, username } from './inputs';

const firstAdmin = z
  .object({ username, email, password, first_name: personName, last_name: personName })
  .strict()
  .meta({ description: 'for a top-level group only: its first administrator, created with it (without one, see create-user)' });

const createBody = z
  .object({
    name: groupName,
    parent_gid: z.union([z.literal(0), idNumber]).optional()
      .meta({ description: 'The parent group (in your subtree); 0 or none for a top-level group (as NicTool)', example: 4096 }),
    admin: firstAdmin.optional(),
    usable_ns: z.array(idNumber).max(1000).nullable().optional().meta({
      description: 'NicTool\'s usable_ns: the nameservers of the groups above this one that its zones may use (null: all of them); ' +
        'set only by an administrator above the group',
    }),
  })
  .strict()
  .refine((v) => !v.parent_gid || v.admin === undefined, {
    message: 'admin (a first administrator) is given only for a top-level group (parent_gid 0 or none)',
    path: ['admin'],
  });

const updateBody = z
  .object({
    name: groupName.optional(),
    parent_gid: idNumber.optional(),
    deleted: z.literal(false).optional().meta({ description: 'false restores a deleted group' }),
    dnssec_default: z.boolean().optional().meta({ description: 'Sign the group\'s new zones (DNSSEC) unless they say otherwise' }),
    usable_ns: z.array(idNumber).max(1000).nullable().optional().meta({
      description: 'NicTool\'s usable_ns: the nameservers of the groups above this one that its zones may use (null: all of them); ' +
        'set only by an administrator above the group',
    }),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'at least one field is required');

const groupExample = (msg: string) => ({
  group: { id: 4097, name: 'sub.example.com', parent_gid: 4096, deleted: false },
  meta: { api: { version: '0.1.0' }, msg },
});

const all = { create: true, write: true, delete: true };
const accessGridExample = {
  group: all, user: all, nameserver: all, zone: { ...all, delegate: true }, zonerecord: { ...all, delegate: true }, self_write: true,
};

const common = {
  401: errorExamples.missingAuthentication,
  403: errorExamples.forbidden,
  404: errorExamples.notFound('Group'),
};

export const groupRoutes: RouteFamily = {
  name: 'group',
  description: 'Groups: a tree; every user, zone and nameserver belongs to one group',
  routes: [
    defineRoute({
      method: 'get',
      path: '/group',
      auth: 'session',
      summary: 'Groups: yours, or those below a group',
      description: 'Without `parent_gid`: your own group. With it: its direct subgroups. `include_subgroups=true` lists every group ' +
        'below `parent_gid` (default: yours); `name` narrows to one name (any case); `deleted=true` lists deleted groups instead.',
      query: z.object({
        parent_gid: idString.optional().meta({ description: 'list the groups below this one' }),
        name: plainText(255).optional(),
        include_subgroups: subgroupsFlag,
        deleted: deletedFlag,
      }).strict(),
      responses: {
        200: {
          description: 'The groups (possibly none)',
          schema: envelopeSchema('group', z.array(groupSchema)),
          example: { group: [groupExample('').group], meta: { api: { version: '0.1.0' }, msg: 'here are your groups' } },
        },
        400: errorExamples.badInput,
        ...common,
      },
      async handler({ query }, { deps, caller }) {
        const groups = await listGroups(deps, caller, {
          parentGid: query.parent_gid, name: query.name, deleted: query.deleted, includeSubgroups: query.include_subgroups,
        });
        return { body: envelope('group', groups.map(serializeGroup), 'here are your groups') };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/group/:id',
      auth: 'session',
      summary: 'A group by id',
      description: 'Your group or one below it. With `?deleted=true` only a deleted group is found.',
      params: idParams,
      query: deletedQuery,
      responses: { 200: { description: 'The group', schema: groupResponseSchema, example: groupExample("here's your group") }, 400: errorExamples.badInput, ...common },
      async handler({ params, query }, { deps, caller }) {
        const group = await getGroup(deps, caller, params.id, { deleted: query.deleted });
        return { body: envelope('group', serializeGroup(group), "here's your group") };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/group/:id/users',
      auth: 'session',
      summary: 'The users of a group',
      description: 'Live users by username; with `?deleted=true` the deleted ones instead.',
      params: idParams,
      query: deletedQuery,
      responses: {
        200: {
          description: 'The users (possibly none)',
          schema: envelopeSchema('user', z.array(userSchema)),
          example: {
            user: [{ id: 4096, first_name: 'Unit', last_name: 'Test', username: 'unit-test', email: 'unit-test@example.com', is_admin: false, deleted: false }],
            meta: { api: { version: '0.1.0' }, msg: 'users in group' },
          },
        },
        400: errorExamples.badInput,
        ...common,
      },
      async handler({ params, query }, { deps, caller }) {
        const users = await listGroupUsers(deps, caller, params.id, { deleted: query.deleted });
        return { body: envelope('user', users.map(serializeUser), 'users in group') };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/group/:id/access',
      auth: 'session',
      summary: 'What you may do in a group',
      description: 'The permission object that applies to you (your own, your group\'s, or none), its flags (`grantable`: no ' +
        'object you write may give more), those flags with Keyzone\'s rules (`allowed`: only administrators manage users and ' +
        'groups) and what you may change of this group (nobody renames, moves or limits their own group). Every change is ' +
        'still checked when it is made.',
      params: idParams,
      query: emptyQuery,
      responses: {
        200: {
          description: 'Your rights in the group',
          schema: envelopeSchema('access', groupAccessSchema),
          example: {
            access: {
              group: { id: 4097, rename: true, move: true, dnssec_default: true, usable_ns: true, permissions: true, delete: true },
              is_admin: true,
              applies: { source: 'none', id: null, name: null },
              grantable: accessGridExample,
              allowed: accessGridExample,
            },
            meta: { api: { version: '0.1.0' }, msg: 'here is what you may do' },
          },
        },
        400: errorExamples.badInput,
        ...common,
      },
      async handler({ params }, { deps, caller }) {
        const access = await getGroupAccess(deps, caller, params.id);
        return { body: envelope('access', serializeGroupAccess(access), 'here is what you may do') };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/group/:id/subgroups',
      auth: 'session',
      summary: 'The direct subgroups of a group',
      description: 'Live subgroups by name; with `?deleted=true` the deleted ones instead.',
      params: idParams,
      query: deletedQuery,
      responses: {
        200: {
          description: 'The subgroups (possibly none)',
          schema: envelopeSchema('group', z.array(groupSchema)),
          example: { group: [groupExample('').group], meta: { api: { version: '0.1.0' }, msg: 'here are the subgroups' } },
        },
        400: errorExamples.badInput,
        ...common,
      },
      async handler({ params, query }, { deps, caller }) {
        const groups = await listGroupChildren(deps, caller, params.id, { deleted: query.deleted });
        return { body: envelope('group', groups.map(serializeGroup), 'here are the subgroups') };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/group',
      auth: 'session',
      permission: ['group_create'],
      summary: 'Create a group (administrators)',
      description: 'With `parent_gid`: a subgroup of a group in your subtree. With `parent_gid` 0 or none (admins of a top-level group ' +
        'only): a new top-level group, with its first administrator when `admin` is given. Permissions follow the group tree, so ' +
        'only that administrator manages the new group; without one (NicTool\'s request), nobody does until `create-user --group ' +
        '<name> --admin` adds one.',
      body: createBody,
      bodyExample: { name: 'sub.example.com', parent_gid: 4096 },
      responses: {
        201: {
          description: 'Created (for a top-level group, `admin` is its first administrator)',
          schema: groupResponseSchema.extend({ admin: userSchema.optional() }),
          example: groupExample('I created this group'),
        },
        400: errorExamples.badInput,
        ...common,
        409: errorExamples.conflict('A group with that name already exists under that parent'),
      },
      async handler({ body }, { deps, caller }) {
        if (!body.parent_gid) {
          const { group, admin } = await createTopLevelGroup(deps, caller, { name: body.name, admin: body.admin, usable_ns: body.usable_ns });
          const created = envelope('group', serializeGroup(group), 'I created this group');
          return { status: 201, body: admin ? { ...created, admin: serializeUser(admin) } : created };
        }
        const group = await createGroup(deps, caller, { name: body.name, parent_gid: body.parent_gid, usable_ns: body.usable_ns });
        return { status: 201, body: envelope('group', serializeGroup(group), 'I created this group') };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/group/:id',
      auth: 'session',
      permission: ['group_write'],
      summary: 'Rename, move or restore a group (administrators)',
      params: idParams,
      body: updateBody,
      bodyExample: { name: 'renamed.example.com' },
      responses: {
        200: { description: 'Updated', schema: groupResponseSchema, example: groupExample('I updated this group') },
        400: errorExamples.badInput,
        ...common,
        409: errorExamples.conflict('A group with that name already exists under that parent'),
      },
      async handler({ params, body }, { deps, caller }) {
        const group = await updateGroupById(deps, caller, params.id, body);
        return { body: envelope('group', serializeGroup(group), 'I updated this group') };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/group/:id',
      auth: 'session',
      permission: ['group_delete'],
      summary: 'Delete a group (administrators; soft delete)',
      description: 'Refused with 409 while the group still holds live users or subgroups.',
      params: idParams,
      responses: {
        200: { description: 'Deleted; the body is the group as it now is', schema: groupResponseSchema, example: groupExample('I deleted that group') },
        ...common,
        409: errorExamples.conflict('Cannot delete group: active users still exist.'),
      },
      async handler({ params }, { deps, caller }) {
        const group = await deleteGroup(deps, caller, params.id);
        return { body: envelope('group', serializeGroup(group), 'I deleted that group') };
      },
    }),
  ],
};
