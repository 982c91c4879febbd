// The PowerDNS Authoritative HTTP API, the subset ACME clients (lego, cert-manager webhooks), external-dns and
// octoDNS-style tools use (issue 32), served on Keyzone's zones: GET /api, /api/v1/servers[/localhost], zone list and
// zone with RRsets, PATCH of RRsets, notify. Always on; every route needs an API token (X-API-Key, PowerDNS's header,
// or Authorization: Bearer), else 401. PowerDNS's wire: bare JSON, errors as {"error": "..."}.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { Deps } from '../deps';
import { ApiError } from '../errors';
import { clientAddressOf } from '../http/client-address';
import { waitForZonePublished } from '../publishing/queue';
import { authenticateApiToken, type TokenCaller } from '../services/access/api-tokens';
import { assertPermitted, type PermissionFlag } from '../services/directory/permission-objects';
import { patchRrsets, PowerDnsApiError, tokenRrsets, tokenZone, tokenZones, type RrsetChange } from '../services/zones/rrsets';

const SERVER_ID = 'localhost';
const ZONES = `/api/v1/servers/${SERVER_ID}/zones`;
/** How long a PATCH waits for the change to reach the zone's nameservers before it answers anyway. */
const PUBLISH_WAIT_MS = 10_000;

/** PowerDNS's zone ids: the name with a trailing dot, characters outside [A-Za-z0-9._-] as =XX (a '/' is =2F). */
export const zoneIdOf = (name: string) => name.replace(/[^A-Za-z0-9._-]/g, (c) => `=${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
const nameOfZoneId = (id: string) => id.replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

function zoneJson(zone: Awaited<ReturnType<typeof tokenZone>>) {
  const id = zoneIdOf(zone.name);
  return {
    id, name: zone.name, type: 'Zone', url: `${ZONES}/${id}`, kind: 'Native', serial: zone.serial, notified_serial: zone.serial,
    edited_serial: zone.serial, masters: [], dnssec: zone.dnssec, nsec3param: '', nsec3narrow: false, presigned: false, soa_edit: '',
    soa_edit_api: '', api_rectify: false, account: '', last_check: 0,
  };
}

const serverJson = () => ({
  type: 'Server', id: SERVER_ID, daemon_type: 'authoritative', version: 'keyzone', url: `/api/v1/servers/${SERVER_ID}`,
  config_url: `/api/v1/servers/${SERVER_ID}/config{/config_setting}`, zones_url: `${ZONES}{/zone}`,
});

type Handler = (req: Request, res: Response, tc: TokenCaller) => Promise<void>;

export function powerDnsApiRouter(deps: Deps): Router {
  const router = express.Router({ caseSensitive: true, strict: false });
  router.use(express.json({ limit: deps.config.http.bodyLimit, type: () => true }));

  const route = (handler: Handler) => async (req: Request, res: Response, next: NextFunction) => {
    try {
      const header = req.get('x-api-key') ?? /^bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1];
      const tc = header ? await authenticateApiToken(deps, header.trim(), clientAddressOf(res)) : undefined;
      if (!tc) {
        res.status(401).json({ error: 'Unauthorized: an API token is needed (X-API-Key or Authorization: Bearer)' });
        return;
      }
      await handler(req, res, tc);
    } catch (err) {
      next(err);
    }
  };

  router.get('/', route(async (_req, res) => void res.json([{ url: '/api/v1', version: 1 }])));
  router.get('/v1/servers', route(async (_req, res) => void res.json([serverJson()])));
  router.get(`/v1/servers/${SERVER_ID}`, route(async (_req, res) => void res.json(serverJson())));
  router.get(`/v1/servers/${SERVER_ID}/zones`, route(async (req, res, tc) => {
    const name = typeof req.query.zone === 'string' ? req.query.zone.toLowerCase().replace(/\.?$/, '.') : undefined;
    res.json((await tokenZones(deps, tc, name)).map(zoneJson));
  }));
  router.get(`/v1/servers/${SERVER_ID}/zones/:zone_id`, route(async (req, res, tc) => {
    const zone = await tokenZone(deps, tc, nameOfZoneId(String(req.params.zone_id)));
    if (req.query.rrsets === 'false') {
      res.json(zoneJson(zone));
      return;
    }
    const name = typeof req.query.rrset_name === 'string' ? req.query.rrset_name.toLowerCase() : undefined;
    const type = typeof req.query.rrset_type === 'string' ? req.query.rrset_type.toUpperCase() : undefined;
    const rrsets = (await tokenRrsets(deps, tc, zone))
      .filter((s) => (!name || s.name === name) && (!type || s.type === type))
      .map((s) => ({ name: s.name, type: s.type, ttl: s.ttl, records: s.records ?? [], comments: [] }));
    res.json({ ...zoneJson(zone), rrsets });
  }));
  router.patch(`/v1/servers/${SERVER_ID}/zones/:zone_id`, route(async (req, res, tc) => {
    const body = req.body as { rrsets?: unknown };
    if (!body || typeof body !== 'object' || !Array.isArray(body.rrsets)) throw new PowerDnsApiError(422, 'The body must be {"rrsets": [...]}');
    if (body.rrsets.some((s) => !s || typeof s !== 'object' || (s as { records?: unknown }).records !== undefined && !Array.isArray((s as { records?: unknown }).records))) {
      throw new PowerDnsApiError(422, 'Each RRset must be an object with name, type, changetype and records[]');
    }
    const zoneName = nameOfZoneId(String(req.params.zone_id));
    // The owner's permission object limits a token as it limits the owner's session (issue 38.4).
    await assertPermitted(deps.db, tc.caller, rrsetFlags(body.rrsets as RrsetChange[]));
    const { zoneId, changed } = await patchRrsets(deps, tc, zoneName, body.rrsets as RrsetChange[]);
    if (changed && deps.publisher) {
      deps.publisher.kick();
      if (!(await waitForZonePublished(deps.db, zoneId, PUBLISH_WAIT_MS))) {
        deps.log.warn({ zone: zoneName }, 'PowerDNS API change stored, not yet on every nameserver after 10 s: it goes out when they answer');
      }
    }
    res.status(204).end();
  }));
  router.put(`/v1/servers/${SERVER_ID}/zones/:zone_id/notify`, route(async (req, res, tc) => {
    await tokenZone(deps, tc, nameOfZoneId(String(req.params.zone_id)));
    deps.publisher?.kick();
    res.json({ result: 'Notification queued' });
  }));
  router.all(/.*/, route(async (req, res) => {
    res.status(req.method === 'GET' ? 404 : 405).json({
      error: req.method === 'GET' ? 'Not Found' : `${req.method} ${req.originalUrl} is not part of Keyzone's PowerDNS-compatible API (zones are created and deleted in the Keyzone API)`,
    });
  }));

  router.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof PowerDnsApiError) {
      res.status(err.status).json({ error: err.message });
    } else if (err instanceof ApiError) {
      // Zone rules answer 400 in Keyzone; PowerDNS says 422 for data it will not take.
      res.status(err.statusCode === 400 ? 422 : err.statusCode).json({ error: err.message });
    } else if (err && typeof err === 'object' && 'code' in err && ['22021', '22P05'].includes(String((err as { code: unknown }).code))) {
      res.status(422).json({ error: 'Text with a NUL character cannot be stored' });
    } else if (err && typeof err === 'object' && 'type' in err && (err as { type: string }).type === 'entity.parse.failed') {
      res.status(400).json({ error: 'The body is not valid JSON' });
    } else if (err && typeof err === 'object' && 'type' in err && (err as { type: string }).type === 'entity.too.large') {
      res.status(413).json({ error: 'The body is too large' });
    } else {
      deps.log.error({ err }, 'PowerDNS API request failed');
      res.status(500).json({ error: 'Internal Server Error' });
    }
  });
  return router;
}

/** The record flags a PATCH needs: REPLACE may create and change records, DELETE (or REPLACE with none) removes them. */
function rrsetFlags(changes: readonly RrsetChange[]): PermissionFlag[] {
  const flags = new Set<PermissionFlag>();
  for (const change of changes) {
    const removes = change.changetype === 'DELETE' || (change.records ?? []).length === 0;
    if (removes) flags.add('zonerecord_delete');
    if (change.changetype !== 'DELETE') flags.add('zonerecord_create').add('zonerecord_write');
  }
  return [...flags];
}
