import { z } from 'zod';
import { envelopeSchema, meta, metaSchema } from './http/envelope';
import type { GroupRow } from './queries/groups';
import type { PermissionFlag, PermissionRow } from './queries/permissions';
import type { UserIdentityRow } from './queries/user-identities';
import type { UserRow } from './queries/users';

// The wire shapes of users, groups and sessions (spec Part 2), as zod schemas (for the OpenAPI document and the
// response checks in tests) and as the functions that build them. Nothing else assembles these objects.

export const loginUserSchema = z.object({
  id: z.number().int(),
  first_name: z.string(),
  last_name: z.string(),
  username: z.string(),
  email: z.string(),
});

export const userSchema = loginUserSchema.extend({
  is_admin: z.boolean(),
  inherit_group_permissions: z.boolean().meta({
    description: 'NicTool\'s: true (default) when the group\'s permission object applies to the user, false when the user\'s own does',
  }),
  deleted: z.boolean(),
});

export const groupSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  /** 0 for a root group, as in NicTool. */
  parent_gid: z.number().int(),
  dnssec_default: z.boolean().meta({ description: 'New zones of this group are signed (DNSSEC) unless they say otherwise' }),
  usable_ns: z.array(z.number().int()).nullable().meta({
    description: 'NicTool\'s usable_ns: the nameservers of the groups above this one that its zones may use; null: all of them ' +
      '(its own and its subgroups\' nameservers are always usable)',
  }),
  deleted: z.boolean(),
});

export const sessionRefSchema = z.object({ id: z.number().int() });

export const loginResponseSchema = z.object({
  user: loginUserSchema,
  group: z.object({ id: z.number().int(), name: z.string() }),
  session: sessionRefSchema,
  meta: metaSchema,
});

export const userResponseSchema = z.object({
  user: userSchema,
  group: z.object({ id: z.number().int() }),
  meta: metaSchema,
});

export const groupResponseSchema = envelopeSchema('group', groupSchema);

export type LoginUser = z.infer<typeof loginUserSchema>;
export type User = z.infer<typeof userSchema>;
export type Group = z.infer<typeof groupSchema>;

export function serializeLoginUser(row: UserRow): LoginUser {
  return { id: row.id, first_name: row.first_name, last_name: row.last_name, username: row.username, email: row.email };
}

export function serializeUser(row: UserRow): User {
  return { ...serializeLoginUser(row), is_admin: row.is_admin, inherit_group_permissions: row.inherit_group_permissions, deleted: row.deleted_at !== null };
}

/** The answer of the user routes: the user, its group's id, and the message. */
export function serializeUserAnswer(row: UserRow, msg: string) {
  return { user: serializeUser(row), group: { id: row.group_id }, meta: meta(msg) };
}

export function serializeGroup(row: GroupRow): Group {
  return {
    id: row.id, name: row.name, parent_gid: row.parent_id ?? 0, dnssec_default: row.dnssec_default, usable_ns: row.usable_ns,
    deleted: row.deleted_at !== null,
  };
}

/** For audit entries: the row as the wire shows it (never a password column: UserRow has none). */
export function auditUser(row: UserRow): Record<string, unknown> {
  return { ...serializeUser(row), gid: row.group_id };
}

/** An auth-server user linked to a DNS user (GET/POST /user/<id>/identities). */
export function serializeUserIdentity(row: UserIdentityRow) {
  return { sub: row.sub, user_id: row.user_id, linked_by: row.linked_by, created_at: new Date(row.created_at).toISOString() };
}

const crudSchema = { create: z.boolean(), write: z.boolean(), delete: z.boolean() };

/** NicTool's permission object (its v3 shape); see services/directory/permission-objects.ts for what is enforced. */
export const permissionSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  inherit: z.boolean().meta({ description: 'a user\'s object: false when it applies (the user\'s inherit_group_permissions); a group\'s: kept, unused' }),
  self_write: z.boolean(),
  deleted: z.boolean(),
  group: z.object({ id: z.number().int().meta({ description: 'the group, or the user\'s group' }), ...crudSchema }),
  user: z.object({ id: z.number().int().optional().meta({ description: 'a user\'s object: the user' }), ...crudSchema }),
  nameserver: z.object({
    usable: z.array(z.number().int()).nullable()
      .meta({ description: 'a group\'s object: the group\'s usable_ns (null: every nameserver above it); a user\'s: kept, not enforced' }),
    ...crudSchema,
  }),
  zone: z.object({ ...crudSchema, delegate: z.boolean().meta({ description: 'kept, not enforced' }) }),
  zonerecord: z.object({ ...crudSchema, delegate: z.boolean().meta({ description: 'kept, not enforced' }) }),
});
export type Permission = z.infer<typeof permissionSchema>;

export function serializePermission(row: PermissionRow): Permission {
  const flag = (name: string) => row[name as PermissionFlag];
  const crud = (prefix: string) => ({ create: flag(`${prefix}_create`), write: flag(`${prefix}_write`), delete: flag(`${prefix}_delete`) });
  return {
    id: row.id,
    name: row.name,
    inherit: row.user_id !== null ? row.user_inherits !== false : row.inherit,
    self_write: row.self_write,
    deleted: row.deleted_at !== null,
    group: { id: row.owner_group_id, ...crud('group') },
    user: { ...(row.user_id !== null ? { id: row.user_id } : {}), ...crud('user') },
    nameserver: { usable: row.usable_ns, ...crud('nameserver') },
    zone: { ...crud('zone'), delegate: row.zone_delegate },
    zonerecord: { ...crud('zonerecord'), delegate: row.zonerecord_delegate },
  };
}

const flagGridSchema = z.object({
  group: z.object(crudSchema),
  user: z.object(crudSchema),
  nameserver: z.object(crudSchema),
  zone: z.object({ ...crudSchema, delegate: z.boolean() }),
  zonerecord: z.object({ ...crudSchema, delegate: z.boolean() }),
  self_write: z.boolean(),
});

/** GET /group/<id>/access: what the caller may do in a group (services/directory/group-access.ts). */
export const groupAccessSchema = z.object({
  group: z.object({
    id: z.number().int(),
    rename: z.boolean(), move: z.boolean(), dnssec_default: z.boolean(), usable_ns: z.boolean(),
    permissions: z.boolean().meta({ description: 'may write the group\'s permission object' }),
    delete: z.boolean(),
  }),
  is_admin: z.boolean(),
  applies: z.object({
    source: z.enum(['user', 'group', 'none']).meta({ description: 'the permission object that applies to you: your own, your group\'s, or none (Keyzone\'s rules alone)' }),
    id: z.number().int().nullable(),
    name: z.string().nullable(),
  }),
  grantable: flagGridSchema.meta({ description: 'the flags of the object that applies to you (all without one): no object you write may give more' }),
  allowed: flagGridSchema.meta({ description: 'those flags with Keyzone\'s rules (administrators manage users and groups): what you may do here' }),
});

function flagGrid(flags: Record<PermissionFlag, boolean>) {
  const crud = (prefix: string) => ({
    create: flags[`${prefix}_create` as PermissionFlag], write: flags[`${prefix}_write` as PermissionFlag], delete: flags[`${prefix}_delete` as PermissionFlag],
  });
  return {
    group: crud('group'), user: crud('user'), nameserver: crud('nameserver'),
    zone: { ...crud('zone'), delegate: flags.zone_delegate }, zonerecord: { ...crud('zonerecord'), delegate: flags.zonerecord_delegate },
    self_write: flags.self_write,
  };
}

/** What services/directory/group-access.ts finds (structurally: serialize imports no service). */
interface GroupAccessInput {
  groupId: number;
  isAdmin: boolean;
  source: 'user' | 'group' | 'none';
  permission: { id: number; name: string } | null;
  grantable: Record<PermissionFlag, boolean>;
  allowed: Record<PermissionFlag, boolean>;
  group: { rename: boolean; move: boolean; dnssec_default: boolean; usable_ns: boolean; permissions: boolean; delete: boolean };
}

export function serializeGroupAccess(access: GroupAccessInput): z.infer<typeof groupAccessSchema> {
  return {
    group: { id: access.groupId, ...access.group },
    is_admin: access.isAdmin,
    applies: { source: access.source, id: access.permission?.id ?? null, name: access.permission?.name ?? null },
    grantable: flagGrid(access.grantable),
    allowed: flagGrid(access.allowed),
  };
}
