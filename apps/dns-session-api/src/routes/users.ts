import { z } from 'zod';
import { defineRoute, type RouteFamily } from '../http/route';
import { deletedQuery, idNumber, idParams } from '../http/schemas';
import { envelope, envelopeSchema } from '../http/envelope';
import { badRequest } from '../errors';
import { serializeUser, serializeUserAnswer, userResponseSchema, userSchema } from '../serialize';
import { listUsersOfGroup } from '../services/directory/groups';
import { deletedFlag, gidQuery, subgroupsFlag } from './dns-inputs';
import { currentLogin } from '../services/access/sessions';
import { createUser, deleteUser, getUser, updateUserById } from '../services/directory/users';
import { errorExamples } from './examples';
import { email, password, personName, username } from './inputs';

const createBody = z
  .object({
    gid: idNumber.meta({ description: 'The group the user belongs to', example: 4096 }),
    username,
    email,
    password,
    first_name: personName.meta({ example: 'Unit' }),
    last_name: personName.meta({ example: 'Test' }),
    is_admin: z.boolean().optional(),
    inherit_group_permissions: z.boolean().optional()
      .meta({ description: 'NicTool\'s: false makes the user\'s own permission object apply instead of the group\'s (default true; administrators only)' }),
  })
  .strict();

const updateBody = z
  .object({
    gid: idNumber.optional(),
    username: username.optional(),
    email: email.optional(),
    password: password.optional(),
    first_name: personName.optional(),
    last_name: personName.optional(),
    is_admin: z.boolean().optional(),
    inherit_group_permissions: z.boolean().optional()
      .meta({ description: 'NicTool\'s: false makes the user\'s own permission object apply instead of the group\'s (default true; administrators only)' }),
    deleted: z.literal(false).optional().meta({ description: 'false restores a deleted user' }),
  })
  .strict()
  .refine((v) => Object.keys(v).length > 0, 'at least one field is required');

const userExample = {
  user: { id: 4096, first_name: 'Unit', last_name: 'Test', username: 'unit-test', email: 'unit-test@example.com', is_admin: false, deleted: false },
  group: { id: 4096 },
  meta: { api: { version: '0.1.0' }, msg: "here's your user" },
};
const withMsg = (msg: string) => ({ ...userExample, meta: { ...userExample.meta, msg } });

const common = {
  401: errorExamples.missingAuthentication,
  403: errorExamples.forbidden,
  404: errorExamples.notFound('User'),
};

export const userRoutes: RouteFamily = {
  name: 'user',
  description: 'Users: each belongs to one group; admins manage the users of their group subtree',
  routes: [
    defineRoute({
      method: 'get',
      path: '/user',
      auth: 'session',
      summary: 'The signed-in user, or with ?gid= the users of a group',
      description: 'Without `gid`: you (one object). With `gid`: the users of that group (an array, as NicTool answers), ' +
        'with `include_subgroups=true` also those of every group below it, with `deleted=true` the deleted ones instead.',
      query: z.object({ gid: gidQuery, include_subgroups: subgroupsFlag, deleted: deletedFlag }).strict(),
      responses: {
        200: {
          description: 'You, or the users of the group',
          schema: z.union([userResponseSchema, envelopeSchema('user', z.array(userSchema))]),
          example: withMsg('this is you'),
        },
        400: errorExamples.badInput,
        ...common,
      },
      async handler({ query }, { deps, caller }) {
        if (query.gid === undefined) {
          if (query.include_subgroups || query.deleted) throw badRequest('Invalid request query input: include_subgroups and deleted go with gid');
          const { user } = await currentLogin(deps, caller);
          return { body: serializeUserAnswer(user, 'this is you') };
        }
        const users = await listUsersOfGroup(deps, caller, query.gid, { deleted: query.deleted, includeSubgroups: query.include_subgroups });
        return { body: envelope('user', users.map(serializeUser), 'users in group') };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/user/:id',
      auth: 'session',
      summary: 'A user by id',
      description: 'With `?deleted=true` only a deleted user is found (NicTool semantics).',
      params: idParams,
      query: deletedQuery,
      responses: { 200: { description: 'The user', schema: userResponseSchema, example: userExample }, 400: errorExamples.badInput, ...common },
      async handler({ params, query }, { deps, caller }) {
        const user = await getUser(deps, caller, params.id, { deleted: query.deleted });
        return { body: serializeUserAnswer(user, "here's your user") };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/user',
      auth: 'session',
      permission: ['user_create'],
      summary: 'Create a user (administrators)',
      body: createBody,
      bodyExample: { gid: 4096, username: 'unit-test', email: 'unit-test@example.com', password: 'Wh@tA-Decent#P6ssw0rd', first_name: 'Unit', last_name: 'Test' },
      responses: {
        201: { description: 'Created', schema: userResponseSchema, example: withMsg('I created this user') },
        400: errorExamples.badInput,
        ...common,
        409: errorExamples.conflict('A user with that username already exists in that group'),
      },
      async handler({ body }, { deps, caller }) {
        const user = await createUser(deps, caller, body);
        return { status: 201, body: serializeUserAnswer(user, 'I created this user') };
      },
    }),
    defineRoute({
      method: 'put',
      path: '/user/:id',
      auth: 'session',
      permission: ({ params }, caller) => (params.id === caller.userId ? ['self_write'] : ['user_write']),
      summary: 'Change a user',
      description:
        'Administrators change users of their subtree; others change only their own name, email and password. ' +
        'A new password or group ends the user\'s other sessions. `{"deleted": false}` restores a deleted user (administrators).',
      params: idParams,
      body: updateBody,
      bodyExample: { first_name: 'Unit', email: 'unit-test@example.com' },
      responses: {
        200: { description: 'Updated', schema: userResponseSchema, example: withMsg('user updated') },
        400: errorExamples.badInput,
        ...common,
        409: errorExamples.conflict('A user with that username already exists in that group'),
      },
      async handler({ params, body }, { deps, caller }) {
        const user = await updateUserById(deps, caller, params.id, body);
        return { body: serializeUserAnswer(user, 'user updated') };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/user/:id',
      auth: 'session',
      permission: ['user_delete'],
      summary: 'Delete a user (administrators; soft delete)',
      params: idParams,
      responses: {
        200: { description: 'Deleted; the body is the user as it now is', schema: userResponseSchema, example: withMsg('I deleted that user') },
        ...common,
        409: errorExamples.conflict('You may not delete yourself'),
      },
      async handler({ params }, { deps, caller }) {
        const user = await deleteUser(deps, caller, params.id);
        return { body: serializeUserAnswer(user, 'I deleted that user') };
      },
    }),
  ],
};
