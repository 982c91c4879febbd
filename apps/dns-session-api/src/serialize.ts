import { z } from 'zod';
import { envelopeSchema, meta, metaSchema } from './http/envelope';
import type { GroupRow } from './queries/groups';
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
  deleted: z.boolean(),
});

export const groupSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  /** 0 for a root group, as in NicTool. */
  parent_gid: z.number().int(),
  dnssec_default: z.boolean().meta({ description: 'New zones of this group are signed (DNSSEC) unless they say otherwise' }),
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
  return { ...serializeLoginUser(row), is_admin: row.is_admin, deleted: row.deleted_at !== null };
}

/** The answer of the user routes: the user, its group's id, and the message. */
export function serializeUserAnswer(row: UserRow, msg: string) {
  return { user: serializeUser(row), group: { id: row.group_id }, meta: meta(msg) };
}

export function serializeGroup(row: GroupRow): Group {
  return { id: row.id, name: row.name, parent_gid: row.parent_id ?? 0, dnssec_default: row.dnssec_default, deleted: row.deleted_at !== null };
}

/** For audit entries: the row as the wire shows it (never a password column: UserRow has none). */
export function auditUser(row: UserRow): Record<string, unknown> {
  return { ...serializeUser(row), gid: row.group_id };
}

/** An auth-server user linked to a DNS user (GET/POST /user/<id>/identities). */
export function serializeUserIdentity(row: UserIdentityRow) {
  return { sub: row.sub, user_id: row.user_id, linked_by: row.linked_by, created_at: new Date(row.created_at).toISOString() };
}
