// Custom OAuth 2.0 / OpenID Connect providers managed through the admin API (issue 41), GoTrue's
// custom_oauth_providers. Unlike GoTrue, the client secret is always sealed (AES-256-GCM, the row id as associated
// data; never plaintext), and the lists are jsonb arrays. cached_discovery holds the OIDC discovery document
// fetched at creation; discovery_cached_at tells every instance when it is due to be read again.
import type { Kysely } from 'kysely';
import { execAll } from './names';
import type { AuthNames } from './names';

export async function up(db: Kysely<unknown>, { n, t }: AuthNames): Promise<void> {
  const https = (column: string) => `constraint ${n(`custom_oauth_providers_${column}_https`)} check (${column} is null or ${column} like 'https://%')`;
  const length = (column: string) => `constraint ${n(`custom_oauth_providers_${column}_length`)} check (char_length(${column}) <= 2048)`;
  const urls = ['issuer', 'discovery_url', 'authorization_url', 'token_url', 'userinfo_url', 'jwks_uri'];
  await execAll(db, [
    `create table ${t('custom_oauth_providers')} (
      id uuid not null,
      provider_type text not null constraint ${n('custom_oauth_providers_provider_type_check')} check (provider_type in ('oauth2', 'oidc')),
      identifier text not null,
      name text not null,
      client_id text not null,
      client_secret text not null,
      acceptable_client_ids jsonb not null default '[]',
      scopes jsonb not null default '[]',
      pkce_enabled boolean not null default true,
      attribute_mapping jsonb not null default '{}',
      custom_claims_allowlist jsonb not null default '[]',
      authorization_params jsonb not null default '{}',
      enabled boolean not null default true,
      email_optional boolean not null default false,
      issuer text,
      discovery_url text,
      skip_nonce_check boolean not null default false,
      cached_discovery jsonb,
      discovery_cached_at timestamptz,
      authorization_url text,
      token_url text,
      userinfo_url text,
      jwks_uri text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      constraint ${n('custom_oauth_providers_pkey')} primary key (id),
      constraint ${n('custom_oauth_providers_identifier_key')} unique (identifier),
      constraint ${n('custom_oauth_providers_identifier_format')} check (identifier ~ '^[a-z0-9][a-z0-9:-]{0,48}[a-z0-9]$'),
      constraint ${n('custom_oauth_providers_name_length')} check (char_length(name) between 1 and 100),
      constraint ${n('custom_oauth_providers_client_id_length')} check (char_length(client_id) between 1 and 512),
      constraint ${n('custom_oauth_providers_oidc_requires_issuer')} check (provider_type <> 'oidc' or (issuer is not null and cached_discovery is not null)),
      constraint ${n('custom_oauth_providers_oauth2_requires_endpoints')}
        check (provider_type <> 'oauth2' or (authorization_url is not null and token_url is not null and userinfo_url is not null)),
      ${urls.map(https).join(',\n      ')},
      ${urls.map(length).join(',\n      ')}
    )`,
    `create index ${n('custom_oauth_providers_provider_type_idx')} on ${t('custom_oauth_providers')} (provider_type)`,
    `create index ${n('custom_oauth_providers_created_at_idx')} on ${t('custom_oauth_providers')} (created_at)`,
  ]);
}
