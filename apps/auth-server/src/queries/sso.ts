// SQL for SAML SSO (issue 30): auth.sso_providers with its one auth.saml_providers row and its auth.sso_domains,
// the relay states of sign-ins in flight, and the assertions already used.
import { sql } from 'kysely';
import type { CodeChallengeMethod, SamlAttributeMappingJson } from '@keyzone/db';
import type { Executor } from './users';

export interface SsoProviderRow {
  id: string;
  resource_id: string | null;
  disabled: boolean;
  created_at: Date | string;
  updated_at: Date | string;
  entity_id: string;
  metadata_xml: string;
  metadata_url: string | null;
  attribute_mapping: SamlAttributeMappingJson | null;
  name_id_format: string | null;
  /** When the metadata was last stored (a metadata_url is read again once it is old). */
  metadata_updated_at: Date | string;
  domains: string[];
}

function providerQuery(db: Executor) {
  return db
    .selectFrom('auth.sso_providers as p')
    .innerJoin('auth.saml_providers as s', 's.sso_provider_id', 'p.id')
    .select([
      'p.id', 'p.resource_id', 'p.disabled', 'p.created_at', 'p.updated_at', 's.entity_id', 's.metadata_xml', 's.metadata_url',
      's.attribute_mapping', 's.name_id_format', 's.updated_at as metadata_updated_at',
    ]);
}

type ProviderBase = Omit<SsoProviderRow, 'domains'>;

async function withDomains(db: Executor, rows: ProviderBase[]): Promise<SsoProviderRow[]> {
  if (rows.length === 0) return [];
  const domains = await db
    .selectFrom('auth.sso_domains')
    .select(['sso_provider_id', 'domain'])
    .where('sso_provider_id', 'in', rows.map((r) => r.id))
    .orderBy('domain')
    .execute();
  return rows.map((row) => ({ ...row, domains: domains.filter((d) => d.sso_provider_id === row.id).map((d) => d.domain) }));
}

export async function listSsoProviders(db: Executor): Promise<SsoProviderRow[]> {
  return withDomains(db, (await providerQuery(db).orderBy('p.created_at').orderBy('p.id').execute()) as ProviderBase[]);
}

export async function findSsoProvider(db: Executor, id: string, options: { forUpdate?: boolean } = {}): Promise<SsoProviderRow | undefined> {
  let query = providerQuery(db).where('p.id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  const row = (await query.executeTakeFirst()) as ProviderBase | undefined;
  return row ? (await withDomains(db, [row]))[0] : undefined;
}

export async function findSsoProviderIdByDomain(db: Executor, domain: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('auth.sso_domains')
    .select('sso_provider_id')
    .where((eb) => eb(eb.fn('lower', ['domain']), '=', domain.toLowerCase()))
    .executeTakeFirst();
  return row?.sso_provider_id;
}

export async function findSsoProviderIdByEntityId(db: Executor, entityId: string): Promise<string | undefined> {
  const row = await db.selectFrom('auth.saml_providers').select('sso_provider_id').where('entity_id', '=', entityId).executeTakeFirst();
  return row?.sso_provider_id;
}

/** The providers other than `exceptProviderId` that hold any of `domains` (lowercase). */
export async function findDomainHolders(
  db: Executor,
  domains: string[],
  exceptProviderId: string | null,
): Promise<Array<{ domain: string; sso_provider_id: string }>> {
  if (domains.length === 0) return [];
  let query = db
    .selectFrom('auth.sso_domains')
    .select(['domain', 'sso_provider_id'])
    .where((eb) => eb(eb.fn('lower', ['domain']), 'in', domains));
  if (exceptProviderId) query = query.where('sso_provider_id', '<>', exceptProviderId);
  return query.execute();
}

export interface SamlProviderValues {
  entityId: string;
  metadataXml: string;
  metadataUrl: string | null;
  attributeMapping: SamlAttributeMappingJson | null;
  nameIdFormat: string | null;
}

export async function insertSsoProvider(
  db: Executor,
  input: SamlProviderValues & { id: string; samlId: string; disabled: boolean; at: Date },
): Promise<void> {
  await db.insertInto('auth.sso_providers').values({ id: input.id, disabled: input.disabled, created_at: input.at, updated_at: input.at }).execute();
  await db.insertInto('auth.saml_providers').values({
    id: input.samlId, sso_provider_id: input.id, entity_id: input.entityId, metadata_xml: input.metadataXml, metadata_url: input.metadataUrl,
    attribute_mapping: input.attributeMapping ? JSON.stringify(input.attributeMapping) : null, name_id_format: input.nameIdFormat,
    created_at: input.at, updated_at: input.at,
  }).execute();
}

export async function updateSsoProvider(
  db: Executor,
  id: string,
  input: Partial<SamlProviderValues> & { disabled?: boolean; at: Date },
): Promise<void> {
  await db.updateTable('auth.sso_providers')
    .set({ updated_at: input.at, ...(input.disabled === undefined ? {} : { disabled: input.disabled }) })
    .where('id', '=', id)
    .execute();
  const saml: Record<string, unknown> = {};
  if (input.metadataXml !== undefined) Object.assign(saml, { metadata_xml: input.metadataXml, updated_at: input.at });
  if (input.metadataUrl !== undefined) saml.metadata_url = input.metadataUrl;
  if (input.attributeMapping !== undefined) saml.attribute_mapping = input.attributeMapping ? JSON.stringify(input.attributeMapping) : null;
  if (input.nameIdFormat !== undefined) saml.name_id_format = input.nameIdFormat;
  if (Object.keys(saml).length > 0) await db.updateTable('auth.saml_providers').set(saml as never).where('sso_provider_id', '=', id).execute();
}

/** The provider's domains become exactly `domains` (lowercase). */
export async function replaceDomains(db: Executor, providerId: string, domains: string[], ids: () => string, at: Date): Promise<void> {
  await db.deleteFrom('auth.sso_domains').where('sso_provider_id', '=', providerId).execute();
  if (domains.length === 0) return;
  await db.insertInto('auth.sso_domains')
    .values(domains.map((domain) => ({ id: ids(), sso_provider_id: providerId, domain, created_at: at, updated_at: at })))
    .execute();
}

export async function deleteSsoProvider(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('auth.sso_providers').where('id', '=', id).execute();
}

export interface RelayStateRow {
  id: string;
  sso_provider_id: string;
  request_id: string;
  redirect_to: string | null;
  flow_state_id: string | null;
  created_at: Date | string;
}

export async function insertRelayState(
  db: Executor,
  row: { id: string; providerId: string; requestId: string; redirectTo: string; flowStateId: string | null; at: Date },
): Promise<void> {
  await db.insertInto('auth.saml_relay_states').values({
    id: row.id, sso_provider_id: row.providerId, request_id: row.requestId, redirect_to: row.redirectTo, flow_state_id: row.flowStateId,
    created_at: row.at, updated_at: row.at,
  }).execute();
}

/** Locked: of two posts of one response, the second waits and then finds the relay state used up. */
export async function findRelayStateForUpdate(db: Executor, id: string): Promise<RelayStateRow | undefined> {
  return (await db
    .selectFrom('auth.saml_relay_states')
    .select(['id', 'sso_provider_id', 'request_id', 'redirect_to', 'flow_state_id', 'created_at'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst()) as RelayStateRow | undefined;
}

export async function deleteRelayState(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('auth.saml_relay_states').where('id', '=', id).execute();
}

/** Records the assertion as used; false when it already was (a replay). */
export async function recordAssertionUse(db: Executor, input: { providerId: string; assertionId: string; expiresAt: Date }): Promise<boolean> {
  const row = await db.insertInto('auth.saml_assertions_used')
    .values({ sso_provider_id: input.providerId, assertion_id: input.assertionId, expires_at: input.expiresAt })
    .onConflict((oc) => oc.columns(['sso_provider_id', 'assertion_id']).doNothing())
    .returning('assertion_id')
    .executeTakeFirst();
  return row !== undefined;
}

/** A PKCE flow started at POST /sso gets its user and auth code once the assertion was accepted. */
export async function completeSsoFlowState(db: Executor, input: { id: string; userId: string; authCode: string; at: Date }): Promise<boolean> {
  const result = await db.updateTable('auth.flow_state')
    .set({ user_id: input.userId, auth_code: input.authCode, auth_code_issued_at: input.at, updated_at: input.at } as never)
    .where('id', '=', input.id)
    .where('auth_code', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** At each sign-in the IdP's view wins: the address, and the claims merged into user_metadata. */
export async function updateSsoUserProfile(db: Executor, input: { id: string; email: string; data: Record<string, unknown>; at: Date }): Promise<void> {
  await db.updateTable('auth.users')
    .set((eb) => ({
      email: input.email,
      raw_user_meta_data: sql`coalesce(${eb.ref('raw_user_meta_data')}, '{}'::jsonb) || ${JSON.stringify(input.data)}::jsonb`,
      updated_at: input.at,
    }) as never)
    .where('id', '=', input.id)
    .where('is_sso_user', '=', true)
    .execute();
}

/** The PKCE flow of an SSO sign-in, created at POST /sso without a user; the ACS completes it. */
export async function insertSsoFlowState(
  db: Executor,
  row: { id: string; codeChallenge: string; codeChallengeMethod: CodeChallengeMethod; referrer: string; at: Date },
): Promise<void> {
  await db.insertInto('auth.flow_state').values({
    id: row.id, provider_type: 'sso', authentication_method: 'sso/saml', code_challenge: row.codeChallenge,
    code_challenge_method: row.codeChallengeMethod, referrer: row.referrer, created_at: row.at, updated_at: row.at,
  } as never).execute();
}
