// The DNS API as the console uses it: same origin, the session cookie, the service's error shape (read by
// @keyzone/ui's requestJson). A 401 on any call but the sign-in itself means the session ended: the console
// shows the sign-in over the screen, which stays mounted, so nothing typed is lost.
import { ApiError, requestJson, type RequestOptions } from '@keyzone/ui/browser';

let onSessionEnded: (() => void) | undefined;

export function whenSessionEnds(listener: () => void): void {
  onSessionEnded = listener;
}

export async function api<T>(url: string, options: RequestOptions = {}): Promise<T> {
  try {
    return await requestJson<T>(url, options);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) onSessionEnded?.();
    throw err;
  }
}

export interface Login {
  user: { id: number; username: string; first_name: string; last_name: string; email: string };
  group: { id: number; name: string };
}

export interface Pagination {
  total: number;
  filtered: number;
  limit: number;
  offset: number;
}

export interface Zone {
  id: number;
  gid: number;
  zone: string;
  description: string;
  mailaddr: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
  ttl: number;
  nameservers: number[];
  dnssec?: boolean;
  nsec3?: boolean;
  last_modified: string;
  deleted: boolean;
}

export type ZoneRecord = {
  id: number;
  zid: number;
  owner: string;
  type: string;
  ttl: number;
  description: string;
  deleted: boolean;
} & Record<string, unknown>;

export interface Nameserver {
  id: number;
  name: string;
  type?: string;
}

export interface ApiToken {
  id: number;
  name: string;
  zones: number[] | null;
  names: string[] | null;
  types: string[] | null;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface HistoryEntry {
  id: number;
  object: string;
  object_id: number;
  action: string;
  user: { id: number } | null;
  at: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export const query = (params: Record<string, string | number | boolean | undefined>) =>
  new URLSearchParams(Object.entries(params).flatMap(([k, v]) => (v === undefined || v === '' ? [] : [[k, String(v)]]))).toString();

/** GET /nameserver/<id>/status: how publishing to a nameserver goes. */
export interface PublishStatus {
  nameserver_id: number;
  queued: number;
  last_success_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
  next_attempt_at: string | null;
  not_published: string | null;
  failing_zones: Array<{ zone_id: number; zone: string | null; attempts: number; last_error: string | null; next_attempt_at: string | null }>;
}

/** POST /nameserver/<id>/publish: every zone of the nameserver queued now; its status and the API's message. */
export async function publishNameserverNow(id: number): Promise<{ status: PublishStatus; message: string }> {
  const reply = await api<{ status: PublishStatus; meta: { msg: string } }>(`nameserver/${id}/publish`, { method: 'POST', body: {} });
  return { status: reply.status, message: reply.meta.msg };
}

export interface ZonePublish {
  zone_id: number;
  queued: number;
  nameservers: Array<{ id: number; name: string; not_published: string | null }>;
}

/** POST /zone/<id>/publish: the zone queued for each of its published nameservers now. */
export async function publishZoneNow(id: number): Promise<ZonePublish> {
  return (await api<{ publish: ZonePublish }>(`zone/${id}/publish`, { method: 'POST', body: {} })).publish;
}

/** A permission object's flags as the API shapes them (NicTool's): the objects × create/write/delete(/delegate). */
export interface PermissionFlags {
  group: { create: boolean; write: boolean; delete: boolean };
  user: { create: boolean; write: boolean; delete: boolean };
  nameserver: { create: boolean; write: boolean; delete: boolean };
  zone: { create: boolean; write: boolean; delete: boolean; delegate: boolean };
  zonerecord: { create: boolean; write: boolean; delete: boolean; delegate: boolean };
  self_write: boolean;
}

/** GET/POST/PUT /permission: a group's object (no user.id) or a user's own. */
export interface PermissionObject extends Omit<PermissionFlags, 'group' | 'user' | 'nameserver'> {
  id: number;
  name: string;
  inherit: boolean;
  deleted: boolean;
  group: { id: number; create: boolean; write: boolean; delete: boolean };
  user: { id?: number; create: boolean; write: boolean; delete: boolean };
  nameserver: { usable: number[] | null; create: boolean; write: boolean; delete: boolean };
}

/** GET /group/<id>/access: what the signed-in user may do in a group. */
export interface GroupAccess {
  group: { id: number; rename: boolean; move: boolean; dnssec_default: boolean; usable_ns: boolean; permissions: boolean; delete: boolean };
  is_admin: boolean;
  applies: { source: 'user' | 'group' | 'none'; id: number | null; name: string | null };
  grantable: PermissionFlags;
  allowed: PermissionFlags;
}

export async function groupAccess(gid: number): Promise<GroupAccess> {
  return (await api<{ access: GroupAccess }>(`group/${gid}/access`)).access;
}

/** The live permission objects of a group and of its users. */
export async function permissionsOf(gid: number): Promise<PermissionObject[]> {
  return (await api<{ permission: PermissionObject[] }>(`permission?${query({ gid })}`)).permission;
}

/** A zone as GET /zone lists it: `secondary` when it is kept as a secondary of an outside primary (issue 44). */
export type ListedZone = Zone & { secondary?: boolean };
