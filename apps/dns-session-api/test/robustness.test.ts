import express from 'express';
import { sql } from 'kysely';
import { renderError } from '../src/http/errors';
import { close, listen, urlOf } from '../src/http/server';
import { startTestServer, type TestServer } from './helpers/server';
import type { CookieClient, TestResponse } from './helpers/client';

// Every bad input gets a clear 4xx in the service's error shape, never a 500, never a crash, and nothing is
// written. The operations come from the app's own OpenAPI document, so a new route is walked without touching
// this file: each path id, query parameter and body field gets wrong types, NUL characters, lone surrogates,
// very long strings and out-of-range numbers, over real HTTP with an admin cookie, on PostgreSQL.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

interface Operation {
  method: string;
  path: string;
  op: Json;
}

interface Attempt {
  what: string;
  method: string;
  path: string;
  raw?: string;
  json?: unknown;
  headers?: Record<string, string>;
  /** The status the case must get, when it is certain (else any 4xx). */
  status?: number;
  /** A word the error message must contain (e.g. the field an unknown-field error names). */
  names?: string;
  /** The operation documents the fixed NicTool text for every 400 (POST /session): it names no field. */
  generic?: boolean;
}

const LONG = 'x'.repeat(100_000);
const BAD_IDS = ['%', '%zz', '%E0%A4%A', 'abc', '-1', '0', '0.5', '1e3', '1e309', '9007199254740992', '2147483648', '99999999999999999999', '%00', '%ED%A0%80', '1%00', ' 1', 'x'.repeat(2000)];
const BAD_QUERY_VALUES = ['abc', '-1', '0.5', '1e309', '9007199254740992', '%00', '%ED%A0%80', 'x'.repeat(4000)];
/** Raw JSON number texts (1e309 overflows to Infinity in JSON.parse; JSON.stringify cannot write it). */
const BAD_NUMBERS = ['1e309', '-1e309', '-1', '9007199254740992', '0.5', '1e2000', '-0.5', '99999999999999999999'];
const WRONG_TYPES: Record<string, string[]> = {
  string: ['42', 'true', '[]', '{}', '["a"]'],
  integer: ['"1"', 'true', '[]', '{}', '"abc"'],
  number: ['"1"', 'true', '[]', '{}'],
  boolean: ['"true"', '1', '[]', '{}', '"yes"'],
  array: ['"a"', '1', '{}', 'true', '[null]', '["x"]', '[0.5]', '[-1]', '[1e309]'],
  object: ['"a"', '1', '[]', 'true', '{"type":1}', '{"unknown":"x"}'],
};

let t: TestServer;
let admin: CookieClient;
let doc: Json;
const ids: Record<string, number> = {};

beforeAll(async () => {
  t = await startTestServer({ kind: 'postgres' });
  const { userId, groupId } = await t.seedUser({ group: 'robust.example', username: 'robust-admin', isAdmin: true });
  const victim = await t.seedSubgroupUser({ parentId: groupId, group: 'robust-sub', username: 'robust-victim' });
  admin = await t.login('robust-admin@robust.example');
  const ns = await admin.post('/nameserver', { name: 'ns1.robust.example.', address: '192.0.2.53' });
  expect(ns.status).toBe(201);
  const zone = await admin.post('/zone', { zone: 'robust.example.', nameservers: [ns.body.nameserver.id] });
  expect(zone.status).toBe(201);
  const record = await admin.post('/zone_record', { zid: zone.body.zone.id, owner: 'www', type: 'A', address: '192.0.2.10' });
  expect(record.status).toBe(201);
  Object.assign(ids, {
    admin: userId, group: groupId, user: victim.userId, subgroup: victim.groupId,
    nameserver: ns.body.nameserver.id, zone: zone.body.zone.id, zone_record: record.body.zone_record.id,
  });
  doc = (await admin.get('/documentation/openapi.json')).body;
}, 60_000);
afterAll(() => t?.close());

function operations(): Operation[] {
  return Object.entries(doc.paths as Record<string, Record<string, Json>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

/** The path with each {param} set to a live object of the family it addresses (victims, never the caller). */
function livePath(path: string): string {
  const family = path.split('/')[1] ?? '';
  const id = family === 'user' ? ids.user : family === 'group' ? ids.subgroup : (ids[family] ?? 1);
  // An auth-server user id is a UUID (issue 20); every other path parameter is a numeric id.
  return path.replace(/\{sub\}/g, '00000000-0000-4000-8000-000000000000').replace(/\{[^}]+\}/g, String(id));
}

/** The documented example body with its ids pointing at live objects, so a bad field meets the deepest checks. */
function baseBody(op: Json): Record<string, unknown> {
  const content = op.requestBody?.content?.['application/json'];
  const example = { ...(content?.example ?? {}) } as Record<string, unknown>;
  if ('gid' in example) example.gid = ids.group;
  if ('zid' in example) example.zid = ids.zone;
  if ('nameservers' in example) example.nameservers = [ids.nameserver];
  return example;
}

function bodySchema(op: Json): Json {
  const schema = op.requestBody?.content?.['application/json']?.schema ?? {};
  return schema.anyOf?.find((s: Json) => s.type === 'object') ?? schema;
}

function typeOf(property: Json): string {
  const types = [property.type, ...(property.anyOf ?? []).map((s: Json) => s.type)].flat().filter((x) => x && x !== 'null');
  if (property.enum || property.const !== undefined) return 'string';
  return types[0] ?? 'string';
}

/** A body with one field replaced by raw JSON text. */
function withRawField(base: Record<string, unknown>, field: string, rawValue: string): string {
  const rest = JSON.stringify({ ...base, [field]: undefined });
  return rest === '{}' ? `{${JSON.stringify(field)}:${rawValue}}` : `{${JSON.stringify(field)}:${rawValue},${rest.slice(1)}`;
}

function attemptsFor(operation: Operation): Attempt[] {
  const { method, path, op } = operation;
  const attempts: Attempt[] = [];
  const generic = op.responses?.['400']?.content?.['application/json']?.example?.message === 'Invalid request payload input';
  const push = attempts.push.bind(attempts);
  attempts.push = (...items: Attempt[]) => push(...items.map((a) => ({ ...a, generic })));
  const live = livePath(path);
  const json = { 'content-type': 'application/json' };
  const hasBody = Boolean(op.requestBody);
  const base = hasBody ? baseBody(op) : undefined;
  const baseRaw = base ? JSON.stringify(base) : undefined;

  // path ids
  if (path.includes('{')) {
    for (const bad of BAD_IDS) {
      attempts.push({ what: `path id ${bad.slice(0, 20)}`, method, path: path.replace(/\{[^}]+\}/g, bad), raw: baseRaw, headers: baseRaw ? json : undefined });
    }
  }
  // query parameters
  const queryParams = (op.parameters ?? []).filter((p: Json) => p.in === 'query');
  for (const p of queryParams) {
    for (const bad of BAD_QUERY_VALUES) {
      // a free-text parameter accepts any short text (an undecodable %-escape is searched for as written);
      // only NUL and over-long text must be refused there
      const freeText = typeOf(p.schema) === 'string' && !p.schema.enum && !p.schema.pattern && !p.schema.const;
      if (freeText && !/%00|xxxx/.test(bad)) continue;
      attempts.push({ what: `query ${p.name}=${bad.slice(0, 20)}`, method, path: `${live}?${p.name}=${bad}`, raw: baseRaw, headers: baseRaw ? json : undefined });
    }
    attempts.push({ what: `query ${p.name} twice`, method, path: `${live}?${p.name}=1&${p.name}=2`, raw: baseRaw, headers: baseRaw ? json : undefined });
    attempts.push({ what: `query ${p.name}[a]`, method, path: `${live}?${p.name}[a]=1`, raw: baseRaw, headers: baseRaw ? json : undefined });
  }
  attempts.push({ what: 'unknown query parameter', method, path: `${live}?bogus_param=1`, raw: baseRaw, headers: baseRaw ? json : undefined, status: 400, names: 'bogus_param' });

  if (!hasBody) {
    if (method === 'GET') return attempts; // fetch sends no body with GET
    // an operation that takes no payload refuses one instead of ignoring it
    attempts.push({ what: 'payload on an operation without one', method, path: live, raw: '{"bogus_field":1}', headers: json, status: 400, names: 'bogus_field' });
    attempts.push({ what: 'invalid JSON', method, path: live, raw: '{"a":', headers: json, status: 400 });
    return attempts;
  }

  // whole bodies
  const deep = '['.repeat(30_000) + ']'.repeat(30_000);
  for (const raw of [deep, `{"a":${deep}}`, '{"a":', '[]', '[{}]', '"text"', '42', 'null', 'true', '', '{"a":1}}', '\u0000', '{"__proto__":{"x":1}}']) {
    attempts.push({ what: `body ${JSON.stringify(raw)}`, method, path: live, raw, headers: json, status: 400 });
  }
  attempts.push({ what: 'unknown field', method, path: live, raw: JSON.stringify({ ...base, bogus_field: 1 }), headers: json, status: 400, names: 'bogus_field' });
  attempts.push({ what: 'text/plain body', method, path: live, raw: 'zone=x&a=1', headers: { 'content-type': 'text/plain' }, status: 400 });
  attempts.push({ what: 'form body', method, path: live, raw: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' }, status: 400 });
  attempts.push({ what: 'no content type', method, path: live, raw: baseRaw });
  attempts.push({ what: 'JSON in latin1', method, path: live, raw: baseRaw, headers: { 'content-type': 'application/json; charset=latin1' }, status: 400 });
  attempts.push({ what: 'oversized body', method, path: live, raw: JSON.stringify({ ...base, pad: 'x'.repeat(t.config.http.bodyLimit + 10) }), headers: json, status: 413 });

  // each field
  const schema = bodySchema(op);
  for (const [field, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
    const type = typeOf(property);
    const values = [...(WRONG_TYPES[type] ?? WRONG_TYPES.string!)];
    values.push('['.repeat(20_000) + ']'.repeat(20_000), '{"a":'.repeat(5_000) + '1' + '}'.repeat(5_000));
    if (type === 'string') values.push('"a\\u0000b"', '"\\ud800"', '"x\\udfff"', '"\\u0000"', JSON.stringify(LONG));
    if (type === 'integer' || type === 'number') values.push(...BAD_NUMBERS);
    if (type === 'array') values.push('[9007199254740992]', '[2147483648]', '["\\u0000"]');
    if (type === 'boolean' && (property.const === false || property.enum)) values.push('true');
    for (const value of values) {
      attempts.push({ what: `${field}: ${value.slice(0, 24)}`, method, path: live, raw: withRawField(base ?? {}, field, value), headers: json });
    }
  }
  return attempts;
}

async function send(client: CookieClient, a: Attempt, extra: Record<string, string> = {}): Promise<TestResponse> {
  return client.request(a.method, a.path, { raw: a.raw, headers: { ...a.headers, ...extra } });
}

function describeFailure(a: Attempt, res: TestResponse): string {
  return `${a.method} ${a.path.slice(0, 80)} [${a.what}] → ${res.status} ${res.text.slice(0, 300)}`;
}

function checkErrorShape(a: Attempt, res: TestResponse, failures: string[]): void {
  const ok =
    res.status >= 400 && res.status < 500 &&
    (a.status === undefined || res.status === a.status) &&
    typeof res.body === 'object' && res.body !== null &&
    res.body.statusCode === res.status && typeof res.body.error === 'string' && typeof res.body.message === 'string' &&
    (a.names === undefined || String(res.body.message).includes(a.names) || (a.generic === true && /^Invalid request \w+ input$/.test(res.body.message)));
  if (!ok) failures.push(describeFailure(a, res));
}

/** What a refused request must leave alone: every DNS, user and group row and the audit log. */
async function snapshot(): Promise<string> {
  const tables = ['dns.users', 'dns.groups', 'dns.nameservers', 'dns.zones', 'dns.zone_nameservers', 'dns.zone_records', 'dns.audit_log', 'dns.user_identities'];
  const parts: string[] = [];
  for (const table of tables) {
    const { rows } = await sql<{ digest: string | null; n: string }>`select md5(string_agg(t::text, '|' order by t::text)) as digest, count(*)::text as n from ${sql.table(table)} t`.execute(t.deps.db);
    parts.push(`${table}:${rows[0]?.n}:${rows[0]?.digest}`);
  }
  return parts.join('\n');
}

describe('robustness: every documented operation, malformed input', () => {
  test('the document lists the DNS and session operations this walks', () => {
    const names = operations().map((o) => `${o.method} ${o.path}`);
    expect(names).toEqual(expect.arrayContaining(['POST /zone', 'PUT /zone_record/{id}', 'DELETE /nameserver/{id}', 'POST /zone/import', 'PUT /user/{id}', 'POST /session']));
    expect(names.length).toBeGreaterThan(30);
  });

  test('with an admin cookie: every bad input is a 4xx in the error shape and nothing is written', async () => {
    const before = await snapshot();
    const failures: string[] = [];
    let count = 0;
    for (const operation of operations()) {
      for (const attempt of attemptsFor(operation)) {
        const res = await send(admin, attempt);
        count += 1;
        checkErrorShape(attempt, res, failures);
      }
    }
    expect(failures).toEqual([]);
    expect(count).toBeGreaterThan(1000);
    expect(await snapshot()).toBe(before);
    // still signed in: no malformed request logged the admin out or broke the session
    expect((await admin.get('/session')).status).toBe(200);
  }, 300_000);

  test('without a cookie, and with a forged or garbled one, every protected operation is 401', async () => {
    const before = await snapshot();
    const failures: string[] = [];
    const name = t.config.session.cookieName;
    const forgedCookies = [
      undefined,
      `${name}=s%3Aforged-session-id.c2lnbmF0dXJl`,
      `${name}=${admin.jar.get(name)?.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'))}`,
      `${name}=%00%ED%A0%80`,
      `${name}=${'x'.repeat(4000)}`,
      `${name}=s%3A`,
    ];
    for (const operation of operations().filter((o) => (o.op.security ?? []).length > 0)) {
      const base = operation.op.requestBody ? baseBody(operation.op) : undefined;
      for (const cookie of forgedCookies) {
        const attempt: Attempt = {
          what: cookie === undefined ? 'no cookie' : `cookie ${cookie.slice(0, 30)}`,
          method: operation.method, path: livePath(operation.path),
          raw: base ? JSON.stringify(base) : undefined, headers: base ? { 'content-type': 'application/json' } : undefined,
          status: 401,
        };
        const res = await t.client().request(attempt.method, attempt.path, { raw: attempt.raw, headers: { ...attempt.headers, ...(cookie ? { cookie } : {}) } });
        checkErrorShape(attempt, res, failures);
        if (res.status === 401 && res.body?.message !== 'Missing authentication') failures.push(describeFailure(attempt, res));
      }
    }
    expect(failures).toEqual([]);
    expect(await snapshot()).toBe(before);
  }, 120_000);
});

describe('the error renderer under every route', () => {
  test('a NUL that reaches PostgreSQL unchecked is a 400, a deadlock a 409, both in the error shape, not a 500', async () => {
    // the routes refuse NUL field by field; this is the net below them, fed a real driver error
    const app = express();
    app.get('/nul', (_req, _res, next) => {
      sql`select ${'a\u0000b'}::text as v`.execute(t.deps.db).then(() => next(new Error('PostgreSQL took a NUL')), next);
    });
    app.get('/jsonb', (_req, _res, next) => {
      sql`select ${'{"a":"\\u0000"}'}::jsonb ->> 'a' as v`.execute(t.deps.db).then(() => next(new Error('PostgreSQL took a NUL')), next);
    });
    app.get('/deadlock', (_req, _res, next) => {
      // two transactions locking the same two rows in opposite orders: PostgreSQL aborts one with 40P01
      const db = t.deps.db;
      const lockBoth = (first: number, second: number, bothHold: Promise<void>, holding: () => void) =>
        db.transaction().execute(async (trx) => {
          await sql`select id from dns.groups where id = ${first} for update`.execute(trx);
          holding();
          await bothHold;
          await sql`select id from dns.groups where id = ${second} for update`.execute(trx);
        });
      let holds = 0;
      let release!: () => void;
      const bothHold = new Promise<void>((resolve) => (release = resolve));
      const holding = () => (++holds === 2 ? release() : undefined);
      const [a, b] = [ids.group, ids.subgroup] as [number, number];
      Promise.all([lockBoth(a, b, bothHold, holding), lockBoth(b, a, bothHold, holding)])
        .then(() => next(new Error('no deadlock')), next);
    });
    app.use(renderError);
    const server = await listen(app, { host: '127.0.0.1', port: 0, keepAliveTimeoutSeconds: 5 });
    try {
      for (const path of ['/nul', '/jsonb']) {
        const res = await fetch(`${urlOf(server)}${path}`);
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({ statusCode: 400, error: 'Bad Request', message: 'Invalid request payload input: text may not contain NUL characters' });
      }
      const res = await fetch(`${urlOf(server)}/deadlock`);
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual({ statusCode: 409, error: 'Conflict', message: 'A concurrent change conflicted with this request; nothing was written, please retry' });
    } finally {
      await close(server);
    }
  });
});
