// /admin/custom-providers and /admin/custom-providers/:identifier (GoTrue's custom_oauth_admin.go), guarded by
// requireAdmin in routes/index.ts. Types are checked here; the rules in services/external/custom-providers/admin.ts.
import type { RequestHandler } from 'express';
import { z } from 'zod';
import { refuseUnstorable } from '../http/body';
import { validate } from '../http/validate';
import { serializeCustomProvider } from '../serialize';
import {
  createCustomProvider, deleteCustomProviderBy, getCustomProvider, listCustomProvidersOf, updateCustomProviderFrom,
} from '../services/external/custom-providers/admin';
import type { CustomProviderRegistry } from '../services/external/custom-providers/registry';
import type { Deps } from '../deps';

type Dependencies = Deps & { customProviders: CustomProviderRegistry };

const ProviderBody = z.object({
  provider_type: z.string().optional(),
  identifier: z.string().optional(),
  name: z.string().optional(),
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
  acceptable_client_ids: z.array(z.string().min(1).max(512)).max(50).optional(),
  scopes: z.array(z.string().min(1).max(256).regex(/^[^\s,]+$/, 'a scope may not contain spaces or commas')).max(50).optional(),
  pkce_enabled: z.boolean().optional(),
  attribute_mapping: z.record(z.string(), z.unknown()).optional(),
  custom_claims_allowlist: z.array(z.string()).max(100).optional(),
  authorization_params: z.record(z.string(), z.unknown()).optional(),
  enabled: z.boolean().optional(),
  email_optional: z.boolean().optional(),
  issuer: z.string().optional(),
  discovery_url: z.string().optional(),
  skip_nonce_check: z.boolean().optional(),
  authorization_url: z.string().optional(),
  token_url: z.string().optional(),
  userinfo_url: z.string().optional(),
  jwks_uri: z.string().optional(),
});

function identifierOf(params: Record<string, unknown>): string {
  const identifier = typeof params.identifier === 'string' ? params.identifier : '';
  refuseUnstorable(identifier, 'identifier');
  return identifier;
}

export function listCustomProvidersRoute(deps: Dependencies): RequestHandler {
  return async (req, res) => {
    const type = typeof req.query.type === 'string' ? req.query.type : undefined;
    const rows = await listCustomProvidersOf(deps, type);
    res.json({ providers: rows.map(serializeCustomProvider) });
  };
}

export function createCustomProviderRoute(deps: Dependencies): RequestHandler {
  return async (req, res) => {
    res.status(201).json(serializeCustomProvider(await createCustomProvider(deps, validate(ProviderBody, req.body))));
  };
}

export function getCustomProviderRoute(deps: Dependencies): RequestHandler {
  return async (req, res) => {
    res.json(serializeCustomProvider(await getCustomProvider(deps, identifierOf(req.params))));
  };
}

export function updateCustomProviderRoute(deps: Dependencies): RequestHandler {
  return async (req, res) => {
    const identifier = identifierOf(req.params);
    res.json(serializeCustomProvider(await updateCustomProviderFrom(deps, identifier, validate(ProviderBody, req.body))));
  };
}

export function deleteCustomProviderRoute(deps: Dependencies): RequestHandler {
  return async (req, res) => {
    await deleteCustomProviderBy(deps, identifierOf(req.params));
    res.status(204).end();
  };
}
