// SAML 2.0 single sign-on (issue 30), GoTrue's tables: an SSO provider with its SAML identity provider and its
// e-mail domains, the relay state of each sign-in in flight (the AuthnRequest's ID is what the IdP's answer must be
// InResponseTo), and, beyond GoTrue, the IDs of the assertions already used, so none is accepted twice.
import type { Kysely } from 'kysely';
import { execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { n, t }: AuthNames): Promise<void> {
  await execAll(db, [
    `create table ${t('sso_providers')} (
      id uuid not null,
      resource_id text,
      disabled boolean not null default false,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint ${n('sso_providers_pkey')} primary key (id)
    )`,
    `create table ${t('saml_providers')} (
      id uuid not null,
      sso_provider_id uuid not null constraint ${n('saml_providers_sso_provider_id_fkey')} references ${t('sso_providers')} (id) on delete cascade,
      entity_id text not null,
      metadata_xml text not null,
      metadata_url text,
      attribute_mapping jsonb,
      name_id_format text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint ${n('saml_providers_pkey')} primary key (id),
      constraint ${n('saml_providers_entity_id_key')} unique (entity_id),
      constraint ${n('saml_providers_entity_id_not_empty')} check (char_length(entity_id) > 0),
      constraint ${n('saml_providers_metadata_xml_not_empty')} check (char_length(metadata_xml) > 0)
    )`,
    `create index ${n('saml_providers_sso_provider_id_idx')} on ${t('saml_providers')} (sso_provider_id)`,
    `create table ${t('sso_domains')} (
      id uuid not null,
      sso_provider_id uuid not null constraint ${n('sso_domains_sso_provider_id_fkey')} references ${t('sso_providers')} (id) on delete cascade,
      domain text not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint ${n('sso_domains_pkey')} primary key (id),
      constraint ${n('sso_domains_domain_not_empty')} check (char_length(domain) > 0)
    )`,
    `create unique index ${n('sso_domains_domain_idx')} on ${t('sso_domains')} (lower(domain))`,
    `create index ${n('sso_domains_sso_provider_id_idx')} on ${t('sso_domains')} (sso_provider_id)`,
    `create table ${t('saml_relay_states')} (
      id uuid not null,
      sso_provider_id uuid not null constraint ${n('saml_relay_states_sso_provider_id_fkey')} references ${t('sso_providers')} (id) on delete cascade,
      request_id text not null,
      for_email text,
      redirect_to text,
      flow_state_id uuid constraint ${n('saml_relay_states_flow_state_id_fkey')} references ${t('flow_state')} (id) on delete cascade,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint ${n('saml_relay_states_pkey')} primary key (id),
      constraint ${n('saml_relay_states_request_id_not_empty')} check (char_length(request_id) > 0)
    )`,
    `create index ${n('saml_relay_states_sso_provider_id_idx')} on ${t('saml_relay_states')} (sso_provider_id)`,
    `create index ${n('saml_relay_states_created_at_idx')} on ${t('saml_relay_states')} (created_at desc)`,
    `create table ${t('saml_assertions_used')} (
      sso_provider_id uuid not null constraint ${n('saml_assertions_used_sso_provider_id_fkey')} references ${t('sso_providers')} (id) on delete cascade,
      assertion_id text not null,
      expires_at timestamptz not null,
      constraint ${n('saml_assertions_used_pkey')} primary key (sso_provider_id, assertion_id)
    )`,
    `create index ${n('saml_assertions_used_expires_at_idx')} on ${t('saml_assertions_used')} (expires_at)`,
  ]);
}
