// The admin SSO API (GoTrue's ssoadmin.go): SAML identity providers with their metadata (given or fetched), e-mail
// domains, attribute mapping and NameID format. An entity ID and a domain belong to one provider at most.
import { randomUUID } from 'node:crypto';
import type { SamlAttributeMappingJson } from '@keyzone/db';
import type { Deps } from '../../deps';
import { ApiError, ErrorCode } from '../../errors';
import {
  deleteSsoProvider, findDomainHolders, findSsoProvider, findSsoProviderIdByEntityId, insertSsoProvider, listSsoProviders, replaceDomains,
  updateSsoProvider, type SsoProviderRow,
} from '../../queries/sso';
import type { Executor } from '../../queries/users';
import { fetchIdpMetadata, parseIdpMetadata } from './idp-metadata';
import type { ServiceProvider } from './service-provider';
import { isUuid } from '../../uuid';

export type SsoDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'log'> & { serviceProvider: ServiceProvider; metadataRefresh: MetadataRefresh };

export interface SsoProviderJson {
  id: string;
  resource_id?: string;
  disabled: boolean;
  saml: {
    entity_id: string;
    metadata_xml: string;
    metadata_url?: string;
    attribute_mapping?: SamlAttributeMappingJson;
    name_id_format?: string;
  };
  domains: Array<{ domain: string }>;
  created_at: string;
  updated_at: string;
}

const iso = (value: Date | string) => new Date(value).toISOString();

export function ssoProviderJson(row: SsoProviderRow): SsoProviderJson {
  return {
    id: row.id,
    ...(row.resource_id ? { resource_id: row.resource_id } : {}),
    disabled: row.disabled,
    saml: {
      entity_id: row.entity_id,
      metadata_xml: row.metadata_xml,
      ...(row.metadata_url ? { metadata_url: row.metadata_url } : {}),
      ...(row.attribute_mapping ? { attribute_mapping: row.attribute_mapping } : {}),
      ...(row.name_id_format ? { name_id_format: row.name_id_format } : {}),
    },
    domains: row.domains.map((domain) => ({ domain })),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export interface ProviderInput {
  metadataXml?: string;
  metadataUrl?: string;
  domains?: string[];
  attributeMapping?: SamlAttributeMappingJson;
  nameIdFormat?: string;
  disabled?: boolean;
}

const notFound = () => new ApiError(404, ErrorCode.sso_provider_not_found, 'SSO Identity Provider not found');

/** The metadata document: the XML given, or fetched from the URL. */
async function metadataOf(deps: SsoDeps, input: ProviderInput): Promise<{ xml: string; url: string | null } | undefined> {
  if (input.metadataXml !== undefined && input.metadataUrl !== undefined) {
    throw new ApiError(400, ErrorCode.validation_failed, 'Only one of metadata_xml or metadata_url needs to be set');
  }
  if (input.metadataXml !== undefined) return { xml: input.metadataXml, url: null };
  if (input.metadataUrl !== undefined) return { xml: await fetchIdpMetadata(input.metadataUrl, deps.serviceProvider.httpsAgent), url: input.metadataUrl };
  return undefined;
}

async function checkDomainsFree(tx: Executor, domains: string[], providerId: string | null): Promise<void> {
  const taken = await findDomainHolders(tx, domains, providerId);
  if (taken[0]) {
    throw new ApiError(400, ErrorCode.sso_domain_already_exists,
      `SSO Domain '${taken[0].domain}' is already added to a SSO provider (${taken[0].sso_provider_id})`);
  }
}

async function entityIdFree(tx: Executor, entityId: string): Promise<void> {
  if (await findSsoProviderIdByEntityId(tx, entityId)) {
    throw new ApiError(422, ErrorCode.saml_idp_already_exists, `A SAML provider with this EntityID (${entityId}) already exists`);
  }
}

export async function createSsoProvider(deps: SsoDeps, input: ProviderInput): Promise<SsoProviderJson> {
  const metadata = await metadataOf(deps, input);
  if (!metadata) throw new ApiError(400, ErrorCode.validation_failed, 'Either metadata_xml or metadata_url must be set');
  const { entityId } = parseIdpMetadata(metadata.xml);
  const id = randomUUID();
  const at = deps.clock.now();
  const domains = input.domains ?? [];
  await deps.db.transaction().execute(async (tx) => {
    await entityIdFree(tx, entityId);
    await checkDomainsFree(tx, domains, null);
    await insertSsoProvider(tx, {
      id, samlId: randomUUID(), disabled: input.disabled ?? false, at, entityId, metadataXml: metadata.xml, metadataUrl: metadata.url,
      attributeMapping: input.attributeMapping ?? null, nameIdFormat: input.nameIdFormat ?? null,
    });
    await replaceDomains(tx, id, domains, randomUUID, at);
  });
  return getSsoProvider(deps, id);
}

export async function listSsoProvidersJson(deps: Pick<Deps, 'db'>): Promise<SsoProviderJson[]> {
  return (await listSsoProviders(deps.db)).map(ssoProviderJson);
}

export async function getSsoProvider(deps: Pick<Deps, 'db'>, id: string): Promise<SsoProviderJson> {
  const row = isUuid(id) ? await findSsoProvider(deps.db, id) : undefined;
  if (!row) throw notFound();
  return ssoProviderJson(row);
}

export async function updateSsoProviderFrom(deps: SsoDeps, id: string, input: ProviderInput): Promise<SsoProviderJson> {
  if (!isUuid(id)) throw notFound();
  const metadata = await metadataOf(deps, input);
  const at = deps.clock.now();
  await deps.db.transaction().execute(async (tx) => {
    const row = await findSsoProvider(tx, id, { forUpdate: true });
    if (!row) throw notFound();
    if (metadata && parseIdpMetadata(metadata.xml).entityId !== row.entity_id) {
      throw new ApiError(400, ErrorCode.saml_entity_id_mismatch, 'Updating a SAML provider with a different EntityID is not allowed');
    }
    if (input.domains) {
      await checkDomainsFree(tx, input.domains, id);
      await replaceDomains(tx, id, input.domains, randomUUID, at);
    }
    await updateSsoProvider(tx, id, {
      at,
      disabled: input.disabled,
      ...(metadata ? { metadataXml: metadata.xml, metadataUrl: metadata.url } : {}),
      ...(input.attributeMapping !== undefined ? { attributeMapping: input.attributeMapping } : {}),
      ...(input.nameIdFormat !== undefined ? { nameIdFormat: input.nameIdFormat || null } : {}),
    });
  });
  return getSsoProvider(deps, id);
}

/** Deletes the provider with its domains and pending sign-ins; its users stay, unable to sign in through it. */
export async function deleteSsoProviderById(deps: Pick<Deps, 'db'>, id: string): Promise<SsoProviderJson> {
  if (!isUuid(id)) throw notFound();
  return deps.db.transaction().execute(async (tx) => {
    const row = await findSsoProvider(tx, id, { forUpdate: true });
    if (!row) throw notFound();
    await deleteSsoProvider(tx, id);
    return ssoProviderJson(row);
  });
}

/**
 * A provider configured by metadata_url re-reads it once it is older than SAML_METADATA_REFRESH_PERIOD, so an IdP's
 * certificate rotation reaches Keyzone. A failed or changed-entity fetch keeps the stored metadata (and is logged).
 * Per instance, one fetch per provider runs at a time (sign-in starts that arrive meanwhile wait for it), and after a
 * failed one the stored metadata is used for RETRY_AFTER_FAILURE_MS before the next try: an IdP that is down or slow
 * (each fetch may take 10 s) then delays one sign-in start, not every start, and repeated starts cannot make
 * Keyzone fetch on each.
 */
export class MetadataRefresh {
  private readonly inFlight = new Map<string, Promise<string>>();
  private readonly retryAt = new Map<string, number>();

  constructor(private readonly deps: Pick<SsoDeps, 'db' | 'clock' | 'config' | 'log'> & { httpsAgent: ServiceProvider['httpsAgent'] }) {}

  metadataOf(row: SsoProviderRow): Promise<string> {
    const now = this.deps.clock.now().getTime();
    const age = now - new Date(row.metadata_updated_at).getTime();
    if (!row.metadata_url || age < this.deps.config.saml.metadataRefreshSeconds * 1000) return Promise.resolve(row.metadata_xml);
    if ((this.retryAt.get(row.id) ?? 0) > now) return Promise.resolve(row.metadata_xml);
    let pending = this.inFlight.get(row.id);
    if (!pending) {
      pending = this.fetch(row, row.metadata_url).finally(() => this.inFlight.delete(row.id));
      this.inFlight.set(row.id, pending);
    }
    return pending;
  }

  private async fetch(row: SsoProviderRow, url: string): Promise<string> {
    try {
      const xml = await fetchIdpMetadata(url, this.deps.httpsAgent);
      if (parseIdpMetadata(xml).entityId !== row.entity_id) throw new Error('the metadata now names another EntityID');
      await updateSsoProvider(this.deps.db, row.id, { metadataXml: xml, at: this.deps.clock.now() });
      this.retryAt.delete(row.id);
      return xml;
    } catch (err) {
      this.retryAt.set(row.id, this.deps.clock.now().getTime() + RETRY_AFTER_FAILURE_MS);
      this.deps.log.warn({ err, sso_provider_id: row.id }, 'SAML metadata_url could not be re-read; the stored metadata is used');
      return row.metadata_xml;
    }
  }
}

const RETRY_AFTER_FAILURE_MS = 60_000;
