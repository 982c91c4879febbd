// /admin/sso/providers and /admin/sso/providers/:idp_id (GoTrue's ssoadmin.go), guarded by requireAdmin in
// routes/index.ts. Bodies are checked here; the metadata itself is checked by services/sso/idp-metadata.ts.
import type { RequestHandler } from 'express';
import { z } from 'zod';
import { ApiError, ErrorCode } from '../errors';
import { validate } from '../http/validate';
import { AttributeMapping, NameIdFormat } from '../services/sso/attribute-mapping';
import {
  createSsoProvider, deleteSsoProviderById, getSsoProvider, listSsoProvidersJson, updateSsoProviderFrom, type ProviderInput, type SsoDeps,
} from '../services/sso/providers';
import { assertSamlEnabled } from '../services/sso/sign-in';

const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;
const NAME_ID_FORMATS: string[] = Object.values(NameIdFormat);

const Domains = z.array(z.string()).transform((list, ctx) => {
  const out: string[] = [];
  for (const raw of list) {
    const domain = raw.trim().toLowerCase().replace(/\.$/, '');
    if (!HOSTNAME.test(domain)) {
      ctx.addIssue({ code: 'custom', message: `"${raw}" is not a domain name` });
      return z.NEVER;
    }
    if (!out.includes(domain)) out.push(domain);
  }
  return out;
});

const ProviderBody = z.object({
  type: z.string().optional(),
  metadata_url: z.string().min(1).optional(),
  metadata_xml: z.string().min(1).optional(),
  domains: Domains.optional(),
  attribute_mapping: AttributeMapping.optional(),
  name_id_format: z.string().optional().refine((v) => v === undefined || v === '' || NAME_ID_FORMATS.includes(v), {
    message: `name_id_format must be unspecified or one of ${NAME_ID_FORMATS.join(', ')}`,
  }),
  disabled: z.boolean().optional(),
});

function inputOf(body: z.infer<typeof ProviderBody>): ProviderInput {
  if (body.metadata_url !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(body.metadata_url);
    } catch {
      url = undefined;
    }
    if (url?.protocol !== 'https:') throw new ApiError(400, ErrorCode.validation_failed, 'metadata_url needs to be a valid HTTPS URL');
  }
  return {
    metadataXml: body.metadata_xml,
    metadataUrl: body.metadata_url,
    domains: body.domains,
    attributeMapping: body.attribute_mapping,
    nameIdFormat: body.name_id_format,
    disabled: body.disabled,
  };
}

const idOf = (params: Record<string, unknown>) => (typeof params.idp_id === 'string' ? params.idp_id : '');

export function listSsoProvidersRoute(deps: SsoDeps): RequestHandler {
  return async (_req, res) => {
    assertSamlEnabled(deps);
    res.json({ items: await listSsoProvidersJson(deps) });
  };
}

export function createSsoProviderRoute(deps: SsoDeps): RequestHandler {
  return async (req, res) => {
    assertSamlEnabled(deps);
    const body = validate(ProviderBody, req.body);
    if (body.type !== 'saml') throw new ApiError(400, ErrorCode.validation_failed, 'Only \'saml\' supported for SSO provider type');
    res.status(201).json(await createSsoProvider(deps, inputOf(body)));
  };
}

export function getSsoProviderRoute(deps: SsoDeps): RequestHandler {
  return async (req, res) => {
    assertSamlEnabled(deps);
    res.json(await getSsoProvider(deps, idOf(req.params)));
  };
}

export function updateSsoProviderRoute(deps: SsoDeps): RequestHandler {
  return async (req, res) => {
    assertSamlEnabled(deps);
    const body = validate(ProviderBody, req.body);
    if (body.type !== undefined && body.type !== 'saml') throw new ApiError(400, ErrorCode.validation_failed, 'Only \'saml\' supported for SSO provider type');
    res.json(await updateSsoProviderFrom(deps, idOf(req.params), inputOf(body)));
  };
}

export function deleteSsoProviderRoute(deps: SsoDeps): RequestHandler {
  return async (req, res) => {
    assertSamlEnabled(deps);
    res.json(await deleteSsoProviderById(deps, idOf(req.params)));
  };
}
