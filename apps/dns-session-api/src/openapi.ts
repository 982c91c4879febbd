import { z } from 'zod';
import type { AnyRoute, RouteFamily } from './http/route';
import { API_VERSION } from './version';

// The OpenAPI 3.1 document, generated from the route objects: the same zod schemas that validate requests
// (io: 'input') and describe responses (io: 'output'), the examples next to them, and the cookie scheme.

type JsonSchema = Record<string, unknown>;

/** Where this API differs from NicTool's on purpose (also in the README's "Coming from NicTool"). */
export const COMING_FROM_NICTOOL = [
  'objects come as one object (`{user: {...}}`), not a one-element array; lists (`GET /zone`, `GET /user?gid=`, `GET /group`) are arrays',
  'names are fully qualified with a trailing dot (`example.com.`, `www.example.com.`); relative names are accepted on input',
  'a deleted object is a 404 (NicTool answers 204), and `?deleted=true` finds only deleted ones',
  'after `DELETE /session` the cookie is dead server-side: the next request is a 401',
  'errors always have one shape, `{statusCode, error, message}` (a bad login too, which NicTool answers with `{err}`)',
  'permissions follow the group tree and are enforced, with NicTool\'s permission objects (`/permission`) as limits within it; a login name `user@group` means one user (group names are unique)',
  '`POST /permission` ignores an `id` (Keyzone gives one); a second live object for the same group or user is a 409',
  'TXT data is read back as text plus `strings` (each character-string exactly); send `"quoted" "strings"` to set them exactly',
  'a zone\'s `serial` never goes backwards: a smaller one is a 400',
  'lists are pages: 100 items unless `limit` says otherwise (at most 1000; NicTool returns up to 1000), and `meta.pagination` (`total`, `filtered`, `limit`, `offset`) tells a client that more exist',
  'unknown fields in a body or a query string are a 400 (NicTool ignores them)',
  'a top-level group (`parent_gid: 0`) is made only by an administrator of a top-level group, and objects go only into a live group; ' +
    'without `admin` (NicTool\'s request) nobody manages it until `create-user --group <name> --admin` gives it an administrator',
  'a record sent without `ttl` takes the TTL of its RRset, or else the zone\'s',
];

export function buildOpenApi(routes: AnyRoute[], families: RouteFamily[], options: { cookieName: string; bearer?: boolean }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
    paths[path] ??= {};
    paths[path][route.method] = operation(route, options.bearer === true);
  }
  const schemes: Record<string, unknown> = {
    cookieAuth: { type: 'apiKey', in: 'cookie', name: options.cookieName, description: 'Set by POST /session' },
  };
  // With auth.yml enabled, the auth server's access tokens work on every route too.
  if (options.bearer) {
    schemes.bearerAuth = { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: "An access token of the auth server (auth.yml), for the linked DNS user" };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Keyzone DNS session API',
      version: API_VERSION,
      description:
        'DNS management over JSON with cookie sessions, compatible with the NicTool v3 API. Sign in with ' +
        '`POST /session`; the browser then sends the session cookie. Errors are `{statusCode, error, message}`.\n\n' +
        '**Coming from NicTool**: where this API differs on purpose —\n' +
        COMING_FROM_NICTOOL.map((line) => `- ${line}`).join('\n'),
    },
    tags: families.map((family) => ({ name: family.name, description: family.description })),
    components: { securitySchemes: schemes },
    paths,
  };
}

function operation(route: AnyRoute, bearer: boolean): Record<string, unknown> {
  const op: Record<string, unknown> = {
    operationId: operationId(route),
    summary: route.summary,
    tags: route.tags,
  };
  if (route.description) op.description = route.description;
  const parameters = [...objectParameters(route.params, 'path'), ...objectParameters(route.query, 'query')];
  if (parameters.length > 0) op.parameters = parameters;
  if (route.body) {
    const content: Record<string, unknown> = { schema: toSchema(route.body, 'input') };
    if (route.bodyExample !== undefined) content.example = route.bodyExample;
    op.requestBody = { required: true, content: { 'application/json': content } };
  }
  op.responses = Object.fromEntries(
    Object.entries(route.responses).map(([status, spec]) => {
      const response: Record<string, unknown> = { description: spec.description };
      if (spec.headers) {
        response.headers = Object.fromEntries(
          Object.entries(spec.headers).map(([name, h]) => [name, { description: h.description, schema: { type: 'string' }, ...(h.example ? { example: h.example } : {}) }]),
        );
      }
      if (spec.schema || spec.example !== undefined) {
        const media: Record<string, unknown> = {};
        if (spec.schema) media.schema = toSchema(spec.schema, 'output');
        if (spec.example !== undefined) media.example = spec.example;
        response.content = { [spec.contentType ?? 'application/json']: media };
      }
      return [status, response];
    }),
  );
  op.security = route.auth === 'session' ? [{ cookieAuth: [] }, ...(bearer ? [{ bearerAuth: [] }] : [])] : [];
  return op;
}

function objectParameters(schema: z.ZodType | undefined, where: 'path' | 'query'): Record<string, unknown>[] {
  if (!schema) return [];
  const json = toSchema(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, example, ...rest } = property as JsonSchema & { description?: string; example?: unknown };
    const parameter: Record<string, unknown> = { name, in: where, required: where === 'path' || required.has(name), schema: rest };
    if (description) parameter.description = description;
    if (example !== undefined) parameter.example = example;
    return parameter;
  });
}

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  delete json.$schema;
  return json;
}

function operationId(route: AnyRoute): string {
  const words = route.path
    .split('/')
    .filter(Boolean)
    .map((part) => (part.startsWith(':') ? `by_${part.slice(1)}` : part));
  return [route.method, ...words].join('_').replace(/[^A-Za-z0-9_]/g, '_');
}
