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
