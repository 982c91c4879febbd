// /admin/users and /admin/users/:user_id (reference §1.4.12). Guarded by requireAdmin in
// routes/index.ts. Handlers parse with zod, call services/admin/, and answer User JSON.
import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, ErrorCode } from '../errors';
import { refuseUnstorable } from '../http/body';
import { clientInfo } from '../http/client';
import { validate } from '../http/validate';
import { createUser, deleteUser, getUser, updateUser, type AdminActor, type AdminUserFields } from '../services/admin/users';
import { listUsers, type UserListSort } from '../services/admin/users-list';
import { signOutUserEverywhere } from '../services/admin/user-sessions';
import { listUsersAfterCursor, type UserListFilters } from '../services/admin/users-cursor';

import { cursorLinkHeader, paginationHeaders, parseCursorMode, parsePagination } from './admin-pagination';
import { columnString, metadataObject, optionalString } from './schemas';

const optionalBool = z
  .boolean()
  .nullish()
  .transform((v) => v ?? undefined);

const AdminUserBody = z.object({
  id: optionalString,
  aud: columnString,
  role: columnString,
  email: optionalString,
  phone: optionalString,
  password: optionalString,
  password_hash: optionalString,
  email_confirm: optionalBool,
  phone_confirm: optionalBool,
  user_metadata: metadataObject,
  app_metadata: metadataObject,
  ban_duration: optionalString,
});

const DeleteBody = z.object({ should_soft_delete: optionalBool });

function fieldsOf(body: z.infer<typeof AdminUserBody>): AdminUserFields {
  return {
    aud: body.aud,
    role: body.role,
    email: body.email,
    phone: body.phone,
    password: body.password,
    passwordHash: body.password_hash,
    emailConfirm: body.email_confirm,
    phoneConfirm: body.phone_confirm,
    userMetadata: body.user_metadata,
    appMetadata: body.app_metadata,
    banDuration: body.ban_duration,
  };
}

/** The admin behind the request, for audit rows: the JWT's sub, named by its email or role. */
export function adminActor(req: Request): AdminActor {
  const claims = req.caller?.claims ?? {};
  const str = (v: unknown) => (typeof v === 'string' ? v : '');
  return { id: str(claims.sub), username: str(claims.email) || str(claims.role) };
}

const userIdOf = (req: Request): string => String(req.params.user_id ?? '');

/** `sort=created_at [asc|desc]` (GoTrue's sort parser; only created_at is sortable). */
function parseSort(raw: unknown): UserListSort {
  if (raw === undefined || raw === '') return 'desc';
  const text = typeof raw === 'string' ? raw.trim() : '';
  const match = /^created_at(?:\s+(asc|desc))?$/i.exec(text);
  if (!match) throw new ApiError(400, ErrorCode.validation_failed, `Bad Sort Parameters: ${JSON.stringify(String(raw))} is not sortable (use created_at asc|desc)`);
  return (match[1]?.toLowerCase() as UserListSort | undefined) ?? 'desc';
}

/** `true`/`false` for a console filter, undefined when absent (either). */
function booleanFilter(raw: unknown, name: string): boolean | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true' || raw === 'false') return raw === 'true';
  throw new ApiError(400, ErrorCode.validation_failed, `${name} must be true or false`);
}

/** The console's filters (cursor mode): confirmed, banned, anonymous, has_mfa, provider. */
function listFilters(req: Request): UserListFilters | undefined {
  const q = req.query;
  const provider = q.provider === undefined || q.provider === '' ? undefined : q.provider;
  if (provider !== undefined && (typeof provider !== 'string' || !/^[a-z0-9:_.-]{1,100}$/i.test(provider))) {
    throw new ApiError(400, ErrorCode.validation_failed, 'provider must be a provider name such as email, google or sso:<id>');
  }
  const filters: UserListFilters = {
    confirmed: booleanFilter(q.confirmed, 'confirmed'),
    banned: booleanFilter(q.banned, 'banned'),
    anonymous: booleanFilter(q.anonymous, 'anonymous'),
    hasMfa: booleanFilter(q.has_mfa, 'has_mfa'),
    provider,
  };
  return Object.values(filters).some((v) => v !== undefined) ? filters : undefined;
}

export function listAdminUsers(deps: Deps): RequestHandler {
  return async (req, res) => {
    const sort = parseSort(req.query.sort);
    const filter = typeof req.query.filter === 'string' ? req.query.filter.trim() : '';
    refuseUnstorable(filter, 'filter');
    const cursorMode = parseCursorMode(req);
    const filters = listFilters(req);
    if (filters && !cursorMode) {
      throw new ApiError(400, ErrorCode.validation_failed, 'confirmed, banned, anonymous, has_mfa and provider need cursor paging (limit and cursor)');
    }
    if (cursorMode) {
      const result = await listUsersAfterCursor(deps, { ...cursorMode, sort, filter: filter || undefined, filters });
      res.set(cursorLinkHeader(req, cursorMode.limit, result.pagination.next_cursor));
      res.json(result);
      return;
    }
    const { page, perPage } = parsePagination(req);
    const result = await listUsers(deps, { page, perPage, sort, filter: filter || undefined });
    res.set(paginationHeaders(req, { page, perPage, total: result.total }));
    res.json({ users: result.users, aud: result.aud });
  };
}

export function getAdminUser(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.json(await getUser(deps, userIdOf(req)));
  };
}

export function createAdminUser(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(AdminUserBody, req.body);
    const id = req.params.user_id ? userIdOf(req) : body.id;
    res.json(await createUser(deps, { id, fields: fieldsOf(body), actor: adminActor(req), client: clientInfo(deps, req) }));
  };
}

export function updateAdminUser(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(AdminUserBody, req.body);
    res.json(
      await updateUser(deps, { id: userIdOf(req), fields: fieldsOf(body), actor: adminActor(req), client: clientInfo(deps, req) }),
    );
  };
}

export function deleteAdminUser(deps: Deps): RequestHandler {
  return async (req, res) => {
    const body = validate(DeleteBody, req.body);
    await deleteUser(deps, {
      id: userIdOf(req),
      soft: body.should_soft_delete === true,
      actor: adminActor(req),
      client: clientInfo(deps, req),
    });
    res.json({});
  };
}

/** POST /admin/users/:user_id/logout (Keyzone's): ends every session of the user. */
export function signOutAdminUser(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.json(await signOutUserEverywhere(deps, { id: userIdOf(req), actor: adminActor(req), client: clientInfo(deps, req) }));
  };
}
