import type { Request } from 'express';
import { z } from 'zod';
import { ApiError, badRequest } from '../errors';
import { meta } from '../http/envelope';
import { defineRoute, type AnyRoute } from '../http/route';
import { idNumber, idParams, idString } from '../http/schemas';
import { textPieces } from '../dns';
import { zoneSchema } from '../serialize-zones';
import { exportZoneFile, importZoneFile, previewZoneFileImport } from '../services/zones/zone-files';
import { plainText } from './dns-inputs';
import { errorExamples } from './examples';

const importBody = z
  .object({
    zone: z.string().min(1).max(255).meta({ description: 'the zone name ($ORIGIN at the start of the file)', example: 'example.com.' }),
    zonefile: z.string().min(1).meta({ description: 'BIND zone file text: $ORIGIN, $TTL, SOA, records', example: '$TTL 3600\n@ SOA ns1.example.net. hostmaster.example.com. 1 86400 7200 1209600 3600\n@ NS ns1.example.net.\nwww A 192.0.2.10\n' }),
    gid: idNumber.optional().meta({ description: 'owning group (default: yours)' }),
    description: plainText(255).optional(),
  })
  .strict();

// Zone files outgrow the JSON body limit (http.body_limit, 100 kB by default: ~3,000 records), so the import
// also takes the file itself as `text/dns` with the zone name in the query, up to http.zone_file_limit (10 MB
// by default). Only text/dns: text/plain is a type a cross-site form can send, so SameSite would be the only
// guard against a forged import.
/** An oversized body is read and dropped up to this much past the limit before the 413 goes out. */
const DRAIN_BYTES = 16 * 1024 * 1024;

const importQuery = z
  .object({
    zone: z.string().min(1).max(255).optional().meta({ description: 'with a text/dns body: the zone name' }),
    gid: idString.optional().meta({ description: 'with a text/dns body: owning group (default: yours)' }),
    description: plainText(255).optional(),
    dry_run: z.enum(['true', 'false']).optional().transform((v) => v === 'true')
      .meta({ description: 'true: check everything and answer what would be created (200), writing nothing' }),
  })
  .strict();

/**
 * Reads a text/dns body up to `limit` bytes; undefined when the request carries another content type. Past
 * the limit the rest is read and dropped (up to DRAIN_BYTES more), so the client is listening when the 413
 * arrives; the connection is then closed. The whole body is read before the import's transaction begins (a slow
 * upload holds no database connection), and handed over as text pieces decoded while the import parses them.
 */
async function readZoneFileBody(req: Request, limit: number): Promise<Iterable<string> | undefined> {
  if (!req.is('text/dns')) {
    if (req.is('*/*')) throw badRequest('Invalid request payload input: send the zone file as Content-Type: text/dns, or JSON {zone, zonefile}');
    return undefined;
  }
  const tooLarge = () =>
    new ApiError('payload_too_large', `A zone file may be at most ${limit} bytes (http.zone_file_limit)`, undefined, { headers: { Connection: 'close' } });
  const declared = Number(req.headers['content-length'] ?? 'NaN');
  if (Number.isFinite(declared) && declared > limit + DRAIN_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit + DRAIN_BYTES) throw tooLarge();
    if (size <= limit) chunks.push(chunk);
  }
  if (size > limit) throw tooLarge();
  return textPieces(chunks);
}

const previewResponse = z.object({
  zone: zoneSchema.omit({ id: true }),
  records: z.number().int(),
  by_type: z.record(z.string(), z.number().int()).meta({ description: 'records per type' }),
  preview: z.array(z.looseObject({ line: z.number().int(), owner: z.string(), type: z.string(), ttl: z.number().int().optional() }))
    .meta({ description: 'the first 500 records of the file, with their line and RDATA fields' }),
  meta: z.object({ api: z.object({ version: z.string() }), msg: z.string() }),
});

const importResponse = z.object({ zone: zoneSchema, records: z.number().int(), meta: z.object({ api: z.object({ version: z.string() }), msg: z.string() }) });

const badZoneFile = {
  description: 'The file has bad lines; nothing was imported. `errors` lists every bad line and why.',
  schema: z.object({ statusCode: z.number(), error: z.string(), message: z.string(), errors: z.array(z.object({ line: z.number(), message: z.string() })).optional() }),
  example: {
    statusCode: 400, error: 'Bad Request', message: 'The zone file has 1 bad line(s): line 4: A address: address must be a dotted-quad IPv4 address: "192.0.2.300"',
    errors: [{ line: 4, message: 'A address: address must be a dotted-quad IPv4 address: "192.0.2.300"' }],
  },
};

export const zoneFileRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get', path: '/zone/:id/export', auth: 'session',
    summary: 'The zone as a BIND zone file',
    description: '$ORIGIN, $TTL, the SOA from the zone, NS records from its nameservers (with glue for in-zone ones), then every record. `named-checkzone` accepts it.',
    params: idParams,
    responses: {
      200: { description: 'The zone file', contentType: 'text/dns', example: '$ORIGIN example.com.\n$TTL 3600\n@\t3600\tIN\tSOA\tns1.example.net. hostmaster.example.com. 2026112300 86400 7200 1209600 3600\n@\t3600\tIN\tNS\tns1.example.net.\nwww\t3600\tIN\tA\t192.0.2.10\n' },
      400: errorExamples.badInput, 401: errorExamples.missingAuthentication, 403: errorExamples.forbidden, 404: errorExamples.notFound('Zone'),
    },
    async handler({ params }, { deps, caller, res }) {
      const { name, text } = await exportZoneFile(deps, caller, params.id);
      res.status(200)
        .set('Content-Type', 'text/dns; charset=utf-8')
        .set('Content-Disposition', `attachment; filename="${name.replace(/\.$/, '') || 'root'}.zone"`)
        .send(text);
    },
  }),
  defineRoute({
    method: 'post', path: '/zone/import', auth: 'session', permission: ['zone_create', 'zonerecord_create'],
    summary: 'Create a zone from a BIND zone file',
    description: 'All or nothing: the zone and every record are created in one transaction, or the answer is 400 listing every bad line. ' +
      'Apex NS records naming a nameserver you may use become that zone\'s nameservers; $INCLUDE and $GENERATE are refused. ' +
      'Send JSON as below, or the zone file itself as `Content-Type: text/dns` with `?zone=<name>` (for files beyond the JSON body limit; up to ' +
      'http.zone_file_limit, 10 MB by default, else 413). At most 100 bad lines are listed; `error_count` counts them all. ' +
      '`?dry_run=true` (with either body) checks everything the same way and answers 200 with what would be created, writing nothing.',
    query: importQuery,
    body: importBody.optional(),
    bodyExample: {
      zone: 'example.com.',
      zonefile: '$TTL 3600\n@ SOA ns1.example.net. hostmaster.example.com. 2026112300 86400 7200 1209600 3600\n@ NS ns1.example.net.\nwww A 192.0.2.10\n',
    },
    responses: {
      200: {
        description: 'With ?dry_run=true: what the import would create (nothing was written)', schema: previewResponse,
        example: {
          zone: { gid: 4096, zone: 'example.com.', description: '', mailaddr: 'hostmaster.example.com.', serial: 2026112300, refresh: 86400, retry: 7200, expire: 1209600, minimum: 3600, ttl: 3600, nameservers: [7], last_modified: '2026-11-23T10:00:00.000Z', deleted: false },
          records: 1, by_type: { NS: 1, A: 1 },
          preview: [{ line: 3, owner: 'example.com.', type: 'NS', ttl: 3600, dname: 'ns1.example.net.' }, { line: 4, owner: 'www.example.com.', type: 'A', ttl: 3600, address: '192.0.2.10' }],
          meta: { api: { version: '0.1.0' }, msg: 'dry run: nothing was imported' },
        },
      },
      201: {
        description: 'Imported', schema: importResponse,
        example: {
          zone: { id: 12, gid: 4096, zone: 'example.com.', description: '', mailaddr: 'hostmaster.example.com.', serial: 2026112300, refresh: 86400, retry: 7200, expire: 1209600, minimum: 3600, ttl: 3600, nameservers: [7], last_modified: '2026-11-23T10:00:00.000Z', deleted: false },
          records: 1,
          meta: { api: { version: '0.1.0' }, msg: 'the zone was imported with 1 records' },
        },
      },
      400: badZoneFile, 401: errorExamples.missingAuthentication, 403: errorExamples.forbidden,
      409: errorExamples.conflict('A zone with that name already exists'),
    },
    async handler({ body, query }, { deps, caller, req }) {
      // The query carries the zone's fields only beside a text/dns body; next to JSON it would be ignored.
      const { dry_run: dryRun, ...rest } = query;
      const misplaced = body ? Object.keys(rest).filter((k) => rest[k as keyof typeof rest] !== undefined) : [];
      if (misplaced.length > 0) {
        throw badRequest(`Invalid request query input: ${misplaced.map((k) => `"${k}"`).join(', ')} belong(s) in the JSON body, not the query`, {
          validation: { source: 'query', keys: misplaced },
        });
      }
      const zonefile = body ? undefined : await readZoneFileBody(req, deps.config.http.zoneFileLimit);
      const input = body ?? (zonefile !== undefined && rest.zone ? { ...rest, zone: rest.zone, zonefile } : undefined);
      if (!input) throw badRequest('Invalid request payload input: send JSON {zone, zonefile} or a text/dns body with ?zone=');
      if (dryRun) {
        const preview = await previewZoneFileImport(deps, caller, input);
        return { status: 200, body: { ...preview, meta: meta('dry run: nothing was imported') } };
      }
      const { zone, records } = await importZoneFile(deps, caller, input);
      return { status: 201, body: { zone, records, meta: meta(`the zone was imported with ${records} records`) } };
    },
  }),
];
