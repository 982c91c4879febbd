import { sql } from 'kysely';
import type { Kysely } from 'kysely';

export const AUTH_MIGRATIONS = [
  '202611230200_core_tables',
  '202611230201_tokens_and_mfa',
  '202611230202_rls_helpers',
  '202611230203_admin_search',
  '202611230204_email_send_log',
  '202611240100_limits_and_outbox',
  '202611250100_oauth_flow',
  '202611250200_mfa',
  '202611260100_mfa_attempts',
  '202611260200_flow_browser_binding',
  '202611270100_saml_sso',
  '202611270200_webauthn',
  '202611280300_oauth_server',
  '202611290100_custom_oauth_providers',
  '202611300100_web3_nonces',
  '202611300200_mfa_recovery_codes',
  '202612010100_admin_console_filters',
  '202612020100_audit_log_trail',
];

export const AUTH_TABLES = [
  'audit_log_entries',
  'custom_oauth_providers',
  'email_send_log',
  'flow_state',
  'identities',
  'kysely_migration',
  'kysely_migration_lock',
  'mail_outbox',
  'mfa_amr_claims',
  'mfa_challenges',
  'mfa_factors',
  'mfa_recovery_codes',
  'oauth_authorizations',
  'oauth_clients',
  'oauth_consents',
  'one_time_tokens',
  'rate_limit_buckets',
  'refresh_tokens',
  'saml_assertions_used',
  'saml_providers',
  'saml_relay_states',
  'sessions',
  'sso_domains',
  'sso_providers',
  'users',
  'web3_nonces',
  'webauthn_challenges',
  'webauthn_credentials',
];

export async function tablesIn(db: Kysely<unknown>, schema: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables where table_schema = ${schema} order by 1`.execute(db);
  return rows.map((r) => r.name);
}

export async function indexesOn(db: Kysely<unknown>, table: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select indexname as name from pg_indexes where schemaname = 'auth' and tablename = ${table} order by 1`.execute(db);
  return rows.map((r) => r.name);
}
