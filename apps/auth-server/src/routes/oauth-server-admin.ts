// Admin management of the OAuth server's clients (GoTrue's /admin/oauth/clients; auth-js admin.oauth.*), each
// behind requireAdmin and 404 feature_disabled unless AUTH_OAUTH_SERVER_ENABLED.
import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import { validate } from '../http/validate';
import { deleteClient, getClient, listClients, regenerateSecret, registerClient, updateClient } from '../services/oauth-server/clients';
import { paginationHeaders, parsePagination } from './admin-pagination';

const uriList = z.array(z.string().max(2048), { message: 'redirect_uris must be an array of strings' });
const grantList = z.array(z.string().max(64), { message: 'grant_types must be an array of strings' });
const short = z.string().max(4096);

/** GoTrue decodes with Go's JSON: unknown fields (response_types, scope from auth-js) are ignored. */
export const RegistrationBody = z.looseObject({
  redirect_uris: uriList.optional(),
  client_type: short.optional(),
  token_endpoint_auth_method: short.optional(),
  grant_types: grantList.optional(),
  client_name: short.optional(),
  client_uri: short.optional(),
  logo_uri: short.optional(),
});
const UpdateBody = RegistrationBody.omit({ client_type: true });

const clientIdOf = (req: Request) => String(req.params.client_id ?? '');

export function adminCreateClient(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.status(201).json(await registerClient(deps, validate(RegistrationBody, req.body), 'manual'));
  };
}

export function adminListClients(deps: Deps): RequestHandler {
  return async (req, res) => {
    const page = parsePagination(req);
    const { clients, total } = await listClients(deps, page);
    for (const [name, value] of Object.entries(paginationHeaders(req, { ...page, total }))) res.setHeader(name, value);
    res.json({ clients, aud: deps.config.jwt.aud });
  };
}

export function adminGetClient(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.json(await getClient(deps, clientIdOf(req)));
  };
}

export function adminUpdateClient(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.json(await updateClient(deps, clientIdOf(req), validate(UpdateBody, req.body)));
  };
}

export function adminDeleteClient(deps: Deps): RequestHandler {
  return async (req, res) => {
    await deleteClient(deps, clientIdOf(req));
    res.status(204).end();
  };
}

export function adminRegenerateSecret(deps: Deps): RequestHandler {
  return async (req, res) => {
    res.json(await regenerateSecret(deps, clientIdOf(req)));
  };
}
