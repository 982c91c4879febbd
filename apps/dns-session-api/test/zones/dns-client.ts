// Typed helpers over the zones API for tests: unique zone names, factories for nameservers, zones, records.
import { randomBytes } from 'node:crypto';
import type { CookieClient, TestResponse } from '../helpers/client';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export const uniqueZone = (label = 'z') => `${label}-${randomBytes(4).toString('hex')}.example.`;

export function expectStatus(res: TestResponse, status: number): TestResponse {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  return res;
}

export async function newNameserver(client: CookieClient, body: Record<string, unknown> = {}): Promise<Json> {
  const res = await client.post('/nameserver', { name: `ns-${randomBytes(4).toString('hex')}.example.net.`, address: '192.0.2.53', ...body });
  return expectStatus(res, 201).body.nameserver;
}

export async function newZone(client: CookieClient, body: Record<string, unknown> = {}): Promise<Json> {
  const res = await client.post('/zone', { zone: uniqueZone(), ...body });
  return expectStatus(res, 201).body.zone;
}

export async function addRecord(client: CookieClient, zid: number, body: Record<string, unknown>): Promise<Json> {
  const res = await client.post('/zone_record', { zid, ...body });
  return expectStatus(res, 201).body.zone_record;
}

/** The rules named in a 400 body. */
export function rulesOf(res: TestResponse): string[] {
  return ((res.body?.errors ?? []) as Array<{ rule: string }>).map((e) => e.rule);
}
